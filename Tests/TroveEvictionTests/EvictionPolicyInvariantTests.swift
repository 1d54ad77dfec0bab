import Testing
import TroveCore
import TroveEviction
import TroveTestSupport

/// Every built-in policy, driven by random operations against a set model: the keys it tracks,
/// evicts and forgets are exactly the ones the model says.
@Suite struct EvictionPolicyInvariantTests {
    static let factories: [any EvictionPolicyFactory] = [
        LRUPolicyFactory(), FIFOPolicyFactory(), LFUPolicyFactory(), SIEVEPolicyFactory(),
        S3FIFOPolicyFactory(), WTinyLFUPolicyFactory()
    ]

    @Test(arguments: factories.map(\.name))
    func tracksExactlyWhatTheModelTracks(_ name: String) throws {
        let factory = try #require(Self.factories.first { $0.name == name })
        let policy = factory.make(capacity: 40, keyType: Int.self)
        var model = Set<Int>()
        var generator = SplitMix64(seed: 11)
        for _ in 0..<20_000 {
            let key = Int(generator.next() % 80)
            switch generator.next() % 8 {
            case 0, 1, 2:
                if model.contains(key) {
                    policy.access(key)
                } else {
                    policy.insert(key, cost: Int(generator.next() % 5) + 1)
                }
                model.insert(key)
            case 3, 4:
                policy.access(key)
            case 5:
                policy.remove(key)
                model.remove(key)
            default:
                let victim = policy.evict()
                if let victim {
                    let wasTracked = model.remove(victim) != nil
                    #expect(wasTracked, "\(name) evicted \(victim), which it did not track")
                } else {
                    #expect(model.isEmpty)
                }
            }
            #expect(policy.count == model.count)
        }
        while let victim = policy.evict() {
            let wasTracked = model.remove(victim) != nil
            #expect(wasTracked)
        }
        #expect(model.isEmpty)
        policy.insert(1, cost: 1)
        policy.removeAll()
        #expect(policy.count == 0)
        #expect(policy.evict() == nil)
    }

    @Test(arguments: factories.map(\.name))
    func registryNamesAreTheFactoryNames(_ name: String) throws {
        var registry = PluginRegistry()
        for factory in Self.factories { try registry.register(evictionPolicy: factory) }
        #expect(try registry.evictionPolicy(named: name).name == name)
        #expect(registry.names(of: .evictionPolicy) == ["fifo", "lfu", "lru", "s3fifo", "sieve", "wtinylfu"])
    }
}
