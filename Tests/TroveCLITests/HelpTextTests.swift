import Foundation
import Testing
import TroveTestSupport

/// Every argument of every subcommand explains itself in `--help`: read from the argument parser's own
/// description of the command tree, so a new option without help text fails here.
@Suite struct HelpTextTests {
    @Test func everyOptionFlagAndArgumentHasHelpText() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let dump = try await CLIRunner(cacheDirectory: work).run(["--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: dump.output) as? [String: Any])
        let tree = try #require(root["command"] as? [String: Any])

        var missing: [String] = []
        var counted = 0
        func walk(_ command: [String: Any], path: String) {
            // `help` is the parser's own command, and its own `--help` flags explain themselves.
            guard command["commandName"] as? String != "help" else { return }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                if names.contains("help") || names.contains("version") { continue }
                counted += 1
                let abstract = argument["abstract"] as? String ?? ""
                if abstract.isEmpty {
                    missing.append("\(path) \(names.first ?? argument["valueName"] as? String ?? "?")")
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path: "\(path) \(sub["commandName"] as? String ?? "?")")
            }
        }
        walk(tree, path: "trove")
        #expect(counted > 50, "the dump listed only \(counted) arguments")
        #expect(missing.isEmpty, "arguments without help text: \(missing)")
    }
}
