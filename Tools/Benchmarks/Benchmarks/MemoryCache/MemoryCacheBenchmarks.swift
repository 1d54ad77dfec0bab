import Benchmark
import Dispatch
import Foundation
import Synchronization

#if canImport(Trove)
    import Trove
#else
    import TroveCore
    import TroveEviction
    import TroveMemoryCache
#endif

// MemoryCache against its two baselines in the same run:
//   NSCache                     what the seeds used (Foundation's thread-safe cache)
//   Mutex<[String: Payload]>    the floor: a bare dictionary behind the same kind of lock, no limits
// Workloads: get-hit (uniform over 1,000 stored keys, and along the Zipf(1.0) stream over keys that are
// all stored, so hot keys meet on one shard), set (into a full cache, so every set evicts), and a 90/10
// read/write mix over a Zipf(1.0) key stream, each on 1 and 2 threads. Targets: get-hit at least 5x
// NSCache on 1 and 2 threads, and at most 1.3x the Mutex dictionary's time on 1 thread.

/// What the caches hold: a reference, like a decoded image.
final class Payload: Sendable {
    let bytes: Int
    init(bytes: Int) { self.bytes = bytes }
}

/// The floor: a dictionary behind a Mutex, no policy, no limits.
final class LockedDictionary: Sendable {
    private let storage = Mutex<[String: Payload]>([:])
    func value(forKey key: String) -> Payload? { storage.withLock { $0[key] } }
    func setValue(_ value: Payload, forKey key: String) { storage.withLock { $0[key] = value } }
}

/// NSCache is documented thread-safe; this box only tells Swift so.
final class SharedNSCache: @unchecked Sendable {  // NSCache locks internally; the keys are never mutated
    let cache = NSCache<NSString, Payload>()
    /// The keys bridged once up front, so the loop measures the cache, not bridging.
    let keys = Workload.keys.map { $0 as NSString }
}

/// The contestants behind one interface, so every workload runs the same loop for each.
enum Contestant: Sendable {
    case trove(MemoryCache<String, Payload>)
    case nsCache(SharedNSCache)
    case dictionary(LockedDictionary)

    @inline(__always)
    func get(_ index: Int, _ keys: [String]) -> Payload? {
        switch self {
        case let .trove(cache): cache.value(forKey: keys[index])
        case let .nsCache(box): box.cache.object(forKey: box.keys[index])
        case let .dictionary(dictionary): dictionary.value(forKey: keys[index])
        }
    }

    @inline(__always)
    func set(_ index: Int, _ keys: [String], _ payload: Payload) {
        switch self {
        case let .trove(cache): cache.setValue(payload, forKey: keys[index], cost: 1)
        case let .nsCache(box): box.cache.setObject(payload, forKey: box.keys[index], cost: 1)
        case let .dictionary(dictionary): dictionary.setValue(payload, forKey: keys[index])
        }
    }
}

enum Workload {
    static let keyCount = 10_000
    /// URL-like keys, as the pipeline uses (longer than a small string, so they live on the heap).
    static let keys = (0..<keyCount).map { "https://images.example.com/photos/\($0).jpg" }
    /// Keys the get-hit workload reads; all stored before measuring.
    static let hotKeys = 1_000
    /// Entries each bounded cache may hold.
    static let capacity = 2_000

    /// A Zipf(1.0) stream of key indices: rank r is drawn with probability proportional to 1/r.
    static let zipfStream: [Int] = {
        var cumulative: [Double] = []
        var total = 0.0
        for rank in 1...keyCount {
            total += 1.0 / Double(rank)
            cumulative.append(total)
        }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        return (0..<(1 << 16)).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let target = Double(state >> 11) / Double(1 << 53) * total
            var low = 0, high = keyCount - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }()
}

/// A built-in eviction policy by its registry name (the factories themselves are not public).
func evictionPolicy(_ name: EvictionPolicyName) -> any EvictionPolicyFactory {
    // The names are the registry's own constants: a failure here is a broken build, not bad input.
    try! PluginRegistry.standard.evictionPolicy(named: name.rawValue)
}

func makeContestant(
    _ name: String, policy: any EvictionPolicyFactory = evictionPolicy(.lru),
    capacity: Int = Workload.capacity
) -> Contestant {
    switch name {
    case "NSCache":
        let box = SharedNSCache()
        box.cache.countLimit = capacity
        return .nsCache(box)
    case "Mutex<[String: Payload]>":
        return .dictionary(LockedDictionary())
    default:
        return .trove(
            MemoryCache(
                configuration: .init(
                    costLimit: .max, countLimit: capacity,
                    maxEntryCostFraction: 1),
                evictionPolicy: policy))
    }
}

/// Runs `operations` operations split over `threads` threads; `body` gets a global operation index.
@inline(__always)
func run(threads: Int, operations: Int, _ body: @Sendable (Int) -> Void) {
    if threads == 1 {
        for index in 0..<operations { body(index) }
    } else {
        let share = operations / threads
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let start = thread * share
            for index in start..<(start + share) { body(index) }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    // One benchmark iteration = 1,000 operations; results are scaled to the time of one operation.
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock], timeUnits: .nanoseconds,
        warmupIterations: 10, scalingFactor: .kilo,
        maxDuration: .seconds(1), maxIterations: 2_000)
    let payload = Payload(bytes: 1)
    let keys = Workload.keys, hotKeys = Workload.hotKeys, keyCount = Workload.keyCount
    let zipfStream = Workload.zipfStream
    let contestants = [
        "MemoryCache lru", "MemoryCache s3fifo", "MemoryCache wtinylfu", "NSCache",
        "Mutex<[String: Payload]>"
    ]
    let policies: [String: any EvictionPolicyFactory] = [
        "MemoryCache lru": evictionPolicy(.lru),
        "MemoryCache s3fifo": evictionPolicy(.s3fifo),
        "MemoryCache wtinylfu": evictionPolicy(.wtinylfu)
    ]

    for threads in [1, 2] {
        for name in contestants {
            let contestant = makeContestant(name, policy: policies[name] ?? evictionPolicy(.lru))
            for index in 0..<hotKeys { contestant.set(index, keys, payload) }
            Benchmark("get-hit \(threads)t: \(name)", configuration: configuration) { benchmark in
                let operations = benchmark.scaledIterations.count
                benchmark.startMeasurement()
                run(threads: threads, operations: operations) { index in
                    blackHole(contestant.get(index % hotKeys, keys))
                }
                benchmark.stopMeasurement()
            }
        }

        for name in contestants {
            // Every key stored and no evictions (room for all 10,000), so every get hits.
            let contestant = makeContestant(name, policy: policies[name] ?? evictionPolicy(.lru), capacity: keyCount)
            for index in 0..<keyCount { contestant.set(index, keys, payload) }
            Benchmark("get-hit zipf \(threads)t: \(name)", configuration: configuration) { benchmark in
                let operations = benchmark.scaledIterations.count
                benchmark.startMeasurement()
                // Each thread starts at its own place in the stream, so the threads do not read in step.
                run(threads: threads, operations: operations) { index in
                    blackHole(contestant.get(zipfStream[(index &* 7_919) & (zipfStream.count - 1)], keys))
                }
                benchmark.stopMeasurement()
            }
        }

        for name in contestants where name != "MemoryCache s3fifo" {
            let contestant = makeContestant(name, policy: policies[name] ?? evictionPolicy(.lru))
            Benchmark("set \(threads)t: \(name)", configuration: configuration) { benchmark in
                let operations = benchmark.scaledIterations.count
                benchmark.startMeasurement()
                // Cycles through 10,000 keys with room for 2,000: every set past the first fill evicts.
                run(threads: threads, operations: operations) { index in
                    contestant.set(index % keyCount, keys, payload)
                }
                benchmark.stopMeasurement()
            }
        }

        for name in contestants {
            let contestant = makeContestant(name, policy: policies[name] ?? evictionPolicy(.lru))
            Benchmark("zipf 90/10 \(threads)t: \(name)", configuration: configuration) { benchmark in
                let operations = benchmark.scaledIterations.count
                benchmark.startMeasurement()
                // Cache-aside: 9 reads in 10 (a miss stores the key), 1 write in 10.
                run(threads: threads, operations: operations) { index in
                    let key = zipfStream[index & (zipfStream.count - 1)]
                    if index % 10 == 0 {
                        contestant.set(key, keys, payload)
                    } else if contestant.get(key, keys) == nil {
                        contestant.set(key, keys, payload)
                    }
                }
                benchmark.stopMeasurement()
            }
        }
    }
}
