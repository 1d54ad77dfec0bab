import ArgumentParser
import Foundation
import Trove
import TroveEviction

/// `trove sim`: replays a trace through one eviction policy and reports its miss ratio, to compare
/// policies (and check them against a reference simulator) on the same requests.
struct SimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Replay a cache trace through an eviction policy and print its hits and misses.",
        discussion: """
            The trace has one request a line: KEY, or KEY SIZE with SIZE in bytes (then --capacity is in \
            bytes too; without sizes it counts keys). Every miss counts, the first request of each key \
            included; a miss stores the key after evicting until it fits.
            """)

    @OptionGroup var common: CommonOptions

    @Option(help: "The trace file (one KEY or KEY SIZE a line).")
    var trace: String

    @Option(help: "Eviction policy name (see `trove plugins`).")
    var policy = "lru"

    @Option(help: "Cache capacity: keys, or bytes when the trace gives sizes.")
    var capacity: Int

    struct Report: Encodable {
        let policy: String
        let capacity: Int
        let requests: Int
        let hits: Int
        let misses: Int
        let missRatio: Double
    }

    func validate() throws {
        guard capacity > 0 else { throw ValidationError("--capacity must be at least 1 (got \(capacity))") }
        try PluginNameCheck.check(policy, option: "--policy", kind: .evictionPolicy)
    }

    func run() async throws {
        let factory = try TroveRegistry.make().evictionPolicy(named: policy)
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: trace))
        } catch {
            printError("Error: cannot read the trace \(trace): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        var simulator = CacheSimulator(factory: factory, capacity: capacity)
        do {
            try simulator.replay(trace: bytes)
        } catch {
            printError("Error: \(trace): \(error)")
            throw ExitCode(1)
        }
        let result = simulator.result
        let report = Report(
            policy: policy, capacity: capacity, requests: result.requests, hits: result.hits,
            misses: result.misses, missRatio: result.missRatio)
        if common.json {
            printJSONLine(report)
        } else {
            print("policy: \(policy)  capacity: \(capacity)")
            print("requests: \(result.requests)  hits: \(result.hits)  misses: \(result.misses)")
            print("missRatio: \(String(format: "%.4f", result.missRatio))")
        }
    }
}
