import ArgumentParser
import Foundation
import Trove

struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Count the entries and the bytes they take on disk.")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var shared: SharedCacheOptions

    /// The disk's stats, and the shared tier's under "shared" when one is given (a stack's tiers in its
    /// "tiers").
    struct Line: Encodable {
        let disk: DiskCacheStats
        let shared: SharedCacheOptions.Report?

        enum Key: String, CodingKey { case shared }

        func encode(to encoder: any Encoder) throws {
            try disk.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encodeIfPresent(shared, forKey: .shared)
        }
    }

    func run() async throws {
        let stats = try await reportingFailures("stats") {
            try await cache.openCache(common).stats()
        }
        let sharedReport = try await reportingFailures("stats") {
            try await shared.report(registry: TroveRegistry.make())
        }
        if common.json {
            printJSONLine(Line(disk: stats, shared: sharedReport))
        } else {
            print("entries:    \(stats.entries)")
            print("bytes:      \(stats.bytes) of \(stats.limitBytes)")
            print("compressed: \(stats.compressed)")
            if stats.corrupt > 0 { print("corrupt:    \(stats.corrupt) (found and deleted while opening)") }
            // One block per tier: a stack's tiers each have their own.
            for report in sharedReport.map({ $0.tiers ?? [$0] }) ?? [] {
                print("shared:     \(report.url) (\(report.name))")
                print("  breaker:  \(report.breaker)" + (report.unavailable.map { " (\($0))" } ?? ""))
                print("  hits:     \(report.hits)")
                print("  misses:   \(report.misses)")
                print("  stores:   \(report.stores)")
                print("  errors:   \(report.errors)")
                print("  skipped:  \(report.skipped) (over the size limit)")
            }
        }
    }
}

struct CacheListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the entries: size on disk, compression, age, key.")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions

    struct Line: Encodable {
        let key: String
        let bytes: Int
        let compressed: Bool
        let created: String
        let expires: String?
    }

    func run() async throws {
        let entries = try await reportingFailures("list") {
            try await cache.openCache(common).listing()
        }
        let dates = ISO8601DateFormatter()
        for entry in entries {
            if common.json {
                printJSONLine(
                    Line(
                        key: entry.key, bytes: entry.bytes, compressed: entry.compressed,
                        created: dates.string(from: entry.created),
                        expires: entry.expires.map { dates.string(from: $0) }))
            } else {
                let size = String(entry.bytes).padding(toLength: 10, withPad: " ", startingAt: 0)
                print(
                    "\(size) \(entry.compressed ? "zlib" : "    ") \(dates.string(from: entry.created))  \(entry.key)")
            }
        }
    }
}

struct CacheVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Read every entry in full, check header, key and checksum, and delete the bad ones.")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions

    func run() async throws {
        let report = try await reportingFailures("verify") {
            try await cache.openCache(common).verify()
        }
        if common.json {
            printJSONLine(report)
        } else {
            print("checked \(report.checked), corrupt \(report.corrupt), removed \(report.removed)")
        }
    }
}
