import Foundation
import TroveTestSupport

/// Runs the built `trove` binary as a user would, capturing stdout, stderr and the exit code.
struct CLIRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        /// stdout byte for byte (what `cache get` writes there is not text).
        let output: Data

        /// stdout parsed as one JSON object per line.
        var jsonLines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
    }

    let cacheDirectory: URL

    /// `trove`, built beside the test runner (`make test` builds every product first).
    static let binary = productsDirectory().appendingPathComponent("trove")

    /// Runs the tool and waits for it off the cooperative pool (see `runSubprocess`), with `extra` added to
    /// this process's environment.
    func run(_ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:])
        async throws -> Result
    {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["TROVE_CACHE_DIR"] = cacheDirectory.path
        let result = try await runSubprocess(Self.binary, arguments, environment: environment, in: directory)
        return Result(
            status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self), stderr: result.stderr,
            output: result.stdout)
    }
}
