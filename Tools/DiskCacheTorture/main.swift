import Foundation
import TorturePayload
import TroveDiskCache

// A helper process for the disk cache's crash and multi-process tests (Tests/TroveDiskCacheTests).
//
//   DiskCacheTorture write DIR KEYS WRITER
//       writes versions of KEYS keys forever, big enough that a SIGKILL lands mid-write; prints
//       "ready" once the cache is open.
//   DiskCacheTorture mix DIR KEYS WRITER ITERATIONS
//       writes and reads the same keys ITERATIONS times, checks every read is a whole version, prints
//       "reads=R hits=H bad=B" and exits 1 if B > 0.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 5, let keyCount = Int(arguments[3]), keyCount > 0, let writer = Int(arguments[4]) else {
    fail("usage: DiskCacheTorture write|mix DIR KEYS WRITER [ITERATIONS]")
}
let cache: DiskCache
do {
    // Durable writes: the fsync before the rename keeps the writer inside its write window (temp file
    // open, not yet renamed) most of the time, where a SIGKILL is most dangerous.
    let durable = arguments[1] == "write"
    cache = try DiskCache(
        directory: URL(fileURLWithPath: arguments[2]), configuration: DiskCacheConfiguration(fsync: durable))
} catch {
    fail("cannot open the cache: \(error)")
}
let keys = (0..<keyCount).map { "key-\($0)" }

switch arguments[1] {
case "write":
    // Versions are built up front so the loop spends its time in the cache's write path.
    let versionsPerKey = 3
    let payloads = (0..<keyCount * versionsPerKey).map { index in
        TorturePayload.make(
            key: keys[index % keyCount], writer: writer, version: index,
            length: 256 << 10 + (index * 104_729) % (2 << 20))
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var index = 0
    while true {
        do {
            try await cache.store(payloads[index % payloads.count], forKey: keys[index % keyCount])
        } catch {
            fail("store failed: \(error)")
        }
        index += 1
    }
case "mix":
    guard arguments.count >= 6, let iterations = Int(arguments[5]) else { fail("mix needs ITERATIONS") }
    var reads = 0, hits = 0, bad = 0
    for iteration in 0..<iterations {
        let key = keys[iteration % keyCount]
        let payload = TorturePayload.make(
            key: key, writer: writer, version: iteration,
            length: 1000 + (iteration * 7919) % 60_000)
        do {
            // Written before the reads, so the other processes' reads can meet it.
            try await cache.storeNow(payload, forKey: key)
            for other in keys {
                reads += 1
                guard let data = try await cache.data(forKey: other) else { continue }
                hits += 1
                if !TorturePayload.isWholeVersion(data, of: other) { bad += 1 }
            }
        } catch {
            fail("cache call failed: \(error)")
        }
    }
    FileHandle.standardOutput.write(Data("reads=\(reads) hits=\(hits) bad=\(bad)\n".utf8))
    exit(bad == 0 ? 0 : 1)
default:
    fail("unknown mode \(arguments[1]); use write or mix")
}
