import ArgumentParser
import Foundation
import Trove

struct CacheTrimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Evict entries by the eviction policy until the cache takes at most the given bytes.")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions

    @Option(
        name: .customLong("to"),
        help: "Target size on disk, e.g. 100000, 64k, 200M (default: the low-water mark, 80% of the limit).")
    var target: ByteCount?

    struct Report: Encodable {
        let removed: Int
        let bytes: Int
    }

    func run() async throws {
        let report = try await reportingFailures("trim") {
            let disk = try cache.openCache(common)
            let bytes = target?.bytes ?? Int(Double(disk.configuration.byteLimit) * disk.configuration.lowWaterFraction)
            let removed = await disk.trim(toBytes: bytes)
            return Report(removed: removed, bytes: await disk.stats().bytes)
        }
        if common.json {
            printJSONLine(report)
        } else {
            print("removed \(report.removed) entries; \(report.bytes) bytes remain")
        }
    }
}

struct CacheClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear", abstract: "Remove every entry, or only those older than an age.")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions

    @Option(name: .customLong("older-than"), help: "Only entries created longer ago than this: 90s, 30m, 12h, 7d, 2w.")
    var olderThan: Age?

    struct Report: Encodable {
        let removed: Int
        /// Remembered failed URLs forgotten with the entries.
        let failures: Int
    }

    func run() async throws {
        let report = try await reportingFailures("clear") {
            let disk = try cache.openCache(common)
            let before = olderThan.map { Date().addingTimeInterval(-Double($0.seconds)) }
            // The failed-URL memory goes with the entries: a cleared cache fetches every URL again.
            let failures = try await PipelineConfiguration.removeRememberedFailures(
                in: disk.directory, recordedBefore: before)
            if let before {
                return Report(removed: try await disk.removeEntries(createdBefore: before), failures: failures)
            }
            await disk.waitForIndex()
            return Report(removed: try await disk.removeAll(), failures: failures)
        }
        if common.json {
            printJSONLine(report)
        } else {
            print(
                "removed \(report.removed) entries"
                    + (report.failures > 0 ? " and \(report.failures) remembered failed URLs" : ""))
        }
    }
}
