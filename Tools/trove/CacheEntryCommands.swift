import ArgumentParser
import Foundation
import Trove

/// What `put` and `get` report.
struct CacheEntryReport: Encodable {
    let key: String
    /// The entry's own bytes (as given to put, as returned by get).
    let bytes: Int
    /// What its payload takes in the entry file (smaller when compressed).
    let storedBytes: Int
    let compressed: Bool
}

struct CachePutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put", abstract: "Store a file's bytes under a key (replacing any entry for it).")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions

    @OptionGroup var compression: CompressionOption

    @Argument(help: "The key.") var key: String
    @Argument(help: "The file to store ('-' for stdin).") var file: String

    func run() async throws {
        let report = try await reportingFailures("put") {
            let disk = try cache.openCache(common, compress: compression.compress)
            let data: Data
            do {
                data =
                    file == "-"
                    ? FileHandle.standardInput.readDataToEndOfFile()
                    : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CacheFailure(message: "cannot read \(file): \(error.localizedDescription)")
            }
            try await disk.storeNow(data, forKey: key)
            // Let the opening scan and any trim it starts finish before the process exits.
            await disk.waitForIndex()
            guard let stored = try await disk.entry(forKey: key) else {
                throw CacheFailure(message: "\(key) was not kept: \(data.count) bytes is over the cache's byte limit")
            }
            return CacheEntryReport(
                key: key, bytes: data.count, storedBytes: stored.storedBytes,
                compressed: stored.compressed)
        }
        if common.json {
            printJSONLine(report)
        } else {
            print(
                "stored \(report.key): \(report.bytes) bytes"
                    + (report.compressed ? " (\(report.storedBytes) compressed)" : ""))
        }
    }
}

struct CacheGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Write an entry's bytes to a file, or to stdout. Exit 1 when not cached.")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions

    @Argument(help: "The key.") var key: String

    @Option(name: .shortAndLong, help: "Write the bytes here (default: stdout, unless --json).")
    var output: String?

    func run() async throws {
        let report = try await reportingFailures("get") {
            let disk = try cache.openCache(common)
            guard let entry = try await disk.entry(forKey: key) else {
                throw CacheFailure(TroveError.notCached(key: key))
            }
            if let output {
                do {
                    try entry.data.write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw CacheFailure(message: "cannot write \(output): \(error.localizedDescription)")
                }
            } else if !common.json {
                FileHandle.standardOutput.write(entry.data)
            }
            return CacheEntryReport(
                key: key, bytes: entry.data.count, storedBytes: entry.storedBytes,
                compressed: entry.compressed)
        }
        if common.json { printJSONLine(report) }
    }
}

struct CacheRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Remove the entry for a key. Exit 1 when not cached.")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions

    @Argument(help: "The key.") var key: String

    struct Report: Encodable {
        let removed: Int
    }

    func run() async throws {
        try await reportingFailures("rm") {
            guard try await cache.openCache(common).removeEntry(forKey: key) else {
                throw CacheFailure(TroveError.notCached(key: key))
            }
        }
        if common.json {
            printJSONLine(Report(removed: 1))
        } else {
            print("removed \(key)")
        }
    }
}
