import ArgumentParser
import Foundation

/// The `trove` tool. Exit codes: 0 success, 1 a failed fetch/decode (message on stderr), 2 bad usage.
@main
struct TroveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trove",
        abstract: "Fetch, cache, decode and transform images from the command line.",
        subcommands: [
            GetCommand.self, PrefetchCommand.self, DecodeCommand.self, ConvertCommand.self, CacheCommand.self,
            PluginsCommand.self, SimCommand.self, DemoCommand.self, ServeCommand.self
        ])

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withCLIError: error)
        }
    }

    /// ArgumentParser reports usage errors with EX_USAGE (64); the Trove contract says 2.
    static func exit(withCLIError error: any Error) -> Never {
        if let usage = error as? UsageError {
            printError("Error: \(usage.description)")
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

/// Bad usage found after parsing (an unknown plugin name, a bad transform spec): exit 2 with the message.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}
