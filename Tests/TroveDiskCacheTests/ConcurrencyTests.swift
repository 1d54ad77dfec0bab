import Foundation
import Testing
import TroveCore
import TroveDiskCache
import TroveTestSupport

@Suite("Concurrent use")
struct ConcurrencyTests {
    /// A distinct, recognisable payload per (key, version): readers can tell exactly which write they saw.
    func payload(key: Int, version: Int) -> Data {
        Data((0..<(300 + version * 50)).map { UInt8(truncatingIfNeeded: key &* 13 &+ version &* 101 &+ $0) })
    }

    @Test func readersSeeAWholeOldOrNewEntryWhileWritersReplaceIt() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        let keys = 0..<4, versions = 0..<10
        let results = try await withThrowingTaskGroup(of: [(Int, Data?)].self) { group in
            for key in keys {
                group.addTask {
                    for version in versions {
                        // Written before it returns: what races the readers is the file replacement itself.
                        try await cache.storeNow(payload(key: key, version: version), forKey: "k\(key)")
                    }
                    return []
                }
                group.addTask {
                    var seen: [(Int, Data?)] = []
                    for _ in 0..<30 { seen.append((key, try await cache.data(forKey: "k\(key)"))) }
                    return seen
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        for (key, data) in results {
            if let data {
                #expect(
                    versions.contains { payload(key: key, version: $0) == data },
                    "key \(key) read bytes no writer wrote")
            }
        }
        for key in keys { #expect(try await cache.data(forKey: "k\(key)") == payload(key: key, version: 9)) }
        let stats = await cache.stats()
        #expect(stats.corrupt == 0)
        #expect(stats.entries == keys.count)
        #expect(filesUnder(dir.url.appendingPathComponent("tmp")).isEmpty)
    }

    @Test func storesAndRemovalsDuringTheOpeningScanAreNotUndoneByIt() async throws {
        let dir = try TemporaryDirectory()
        let first = try DiskCache(directory: dir.url)
        for i in 0..<200 { try await first.store(payload(key: i, version: 0), forKey: "old-\(i)") }
        await first.flush()

        let second = try DiskCache(directory: dir.url)
        // No waiting for the index: these race with the background scan.
        for i in 0..<50 { try await second.store(payload(key: i, version: 1), forKey: "new-\(i)") }
        await second.flush()
        for i in 0..<20 { #expect(try await second.removeEntry(forKey: "old-\(i)")) }
        for i in 20..<25 { try await second.store(payload(key: i, version: 2), forKey: "old-\(i)") }
        await second.flush()

        let stats = await second.stats()
        #expect(stats.entries == 230)
        let files = filesUnder(dir.url.appendingPathComponent("entries"))
        #expect(files.count == 230)
        #expect(stats.bytes == (try files.reduce(0) { try $0 + fileSize($1) }))
        #expect(try await second.keys().count == 230)
        #expect(try await second.data(forKey: "old-0") == nil)
        #expect(try await second.data(forKey: "old-22") == payload(key: 22, version: 2))
    }
}
