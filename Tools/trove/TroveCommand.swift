import ArgumentParser
import Foundation

/// The `trove` tool. Exit codes: 0 success, 1 a failed fetch/decode (message on stderr), 2 bad usage.
@main
struct TroveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trove",
        abstract: "Fetch, cache, decode and transform images from the command line.",
        subcommands: [
            GetCommand.self, FetchCommand.self, PrefetchCommand.self, DecodeCommand.self, ConvertCommand.self,
            CacheCommand.self, PluginsCommand.self, SimCommand.self, DemoCommand.self, ServeCommand.self
        ])

    static func main() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withCLIError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withCLIError: error, duringRun: true)
        }
    }

    /// ArgumentParser reports usage errors with EX_USAGE (64); the Trove contract says 2. A
    /// `ValidationError` thrown once a command runs (a transform spec, a file that cannot be read) is
    /// reported as one line, without the usage text, since parsing went well.
    static func exit(withCLIError error: any Error, duringRun: Bool = false) -> Never {
        if duringRun, let usage = error as? ValidationError {
            printError("Error: \(usage.message)")
            Foundation.exit(2)
        }
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { print(message) }
            Foundation.exit(0)
        }
        if !message.isEmpty { printError(message) }
        switch code.rawValue {
        case 1: Foundation.exit(1)
        default: Foundation.exit(2)
        }
    }
}

/// Writes a line to stderr.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// A failure already reported on stderr: exit 1.
struct OperationFailed: Error {}
