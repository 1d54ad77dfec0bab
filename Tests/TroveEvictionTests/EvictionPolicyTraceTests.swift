import Testing
import TroveCore
import TroveEviction

/// Tiny traces replayed through `CacheSimulator` (the code `trove sim` runs), with the expected hits,
/// misses and final contents worked out by hand from each policy's published definition. The
/// comments walk through each step.
@Suite struct EvictionPolicyTraceTests {
    struct Expectation: Sendable, CustomTestStringConvertible {
        let factory: any EvictionPolicyFactory
        let capacity: Int
        let trace: String
        let hits: Int
        let misses: Int
        let contents: Set<String>
        var testDescription: String { "\(factory.name) on \(trace)" }
    }

    static let expectations: [Expectation] = [
        // LRU, 3 keys. a b c fill [c b a]; a hits [a c b]; d evicts b [d a c]; b evicts c [b d a];
        // e evicts a [e b d]; a evicts d [a e b].
        Expectation(
            factory: LRUPolicyFactory(), capacity: 3, trace: "a b c a d b e a",
            hits: 1, misses: 7, contents: ["a", "e", "b"]),
        // FIFO, 3 keys. a b c fill; a hits (no reordering); d evicts a; b hits; e evicts b; a evicts c.
        Expectation(
            factory: FIFOPolicyFactory(), capacity: 3, trace: "a b c a d b e a",
            hits: 2, misses: 6, contents: ["d", "e", "a"]),
        // LFU, 3 keys. a then a hit (a:2); b, c at 1; d evicts the oldest of the 1s, b; c hits (c:2);
        // e evicts d, the only 1 left. LRU would have kept d and dropped a.
        Expectation(
            factory: LFUPolicyFactory(), capacity: 3, trace: "a a b c d c e",
            hits: 2, misses: 5, contents: ["a", "c", "e"]),
        // SIEVE, 3 keys. Queue (oldest first) a b c; a hit sets a's bit. d: the hand starts at a,
        // clears its bit, moves to b (clear) and evicts it; the hand stays at c. b: c is clear, evicted;
        // hand at d. e: d is clear, evicted. a survived both sweeps without moving.
        Expectation(
            factory: SIEVEPolicyFactory(), capacity: 3, trace: "a b c a d b e",
            hits: 1, misses: 6, contents: ["a", "b", "e"]),
        // S3-FIFO, 10 keys (small queue 1, main 9, ghost 9). a goes to small and is hit twice (2 hits);
        // the small queue is full and nothing was evicted yet, so b...j go to main. x: the small queue
        // is evicted first: a was hit more than once, so it moves to main; the small queue is empty, so
        // main evicts its oldest unhit entry, b. x enters small. y: x (no hits) leaves small for the
        // ghost. x again: y goes to the ghost; x is in the ghost, so it enters main. z: main is over
        // its share (10 > 9) and evicts its oldest unhit entry, c.
        Expectation(
            factory: S3FIFOPolicyFactory(), capacity: 10, trace: "a a a b c d e f g h i j x y x z",
            hits: 2, misses: 14, contents: ["d", "e", "f", "g", "h", "i", "j", "a", "x", "z"]),
        // W-TinyLFU, 5 keys: window 1, protected 3. h is seen 3 times (doorkeeper + 2 counts: estimate 3)
        // in the window; a b c d each push the window's oldest into probation: window [d], probation
        // (oldest first) h a b c. h hits: promoted to protected (estimate 4). x: candidate d (seen once)
        // against victim a (once): not more often, so d is evicted. y: x against a: x is evicted.
        // y hits (estimate 2). z: candidate y (2) against a (1): y is admitted to probation, a evicted.
        Expectation(
            factory: WTinyLFUPolicyFactory(), capacity: 5, trace: "h h h a b c d h x y y z",
            hits: 4, misses: 8, contents: ["h", "y", "c", "b", "z"])
    ]

    @Test(arguments: expectations)
    func replaysToTheHandWorkedResult(_ expected: Expectation) {
        var simulator = CacheSimulator(factory: expected.factory, capacity: expected.capacity)
        for key in expected.trace.split(separator: " ") { simulator.request(String(key)) }
        #expect(simulator.result.hits == expected.hits)
        #expect(simulator.result.misses == expected.misses)
        #expect(simulator.result.requests == expected.hits + expected.misses)
        #expect(simulator.count == expected.contents.count)
        for key in expected.contents { #expect(simulator.contains(key), "\(key) should be cached") }
    }

    @Test func sizedTraceCountsCapacityInBytes() throws {
        // Capacity 100 bytes, LRU. a(60) b(30) fit; c(50) must evict a (LRU) leaving b c (80);
        // a(60) again must evict b and c (the order they were stored) to fit; huge(101) never fits.
        var simulator = CacheSimulator(factory: LRUPolicyFactory(), capacity: 100)
        try simulator.replay(trace: Array("a 60\nb,30\nc\t50\n\na 60\nhuge 101\nhuge 101\n".utf8))
        #expect(simulator.result.requests == 6)
        #expect(simulator.result.hits == 0)
        #expect(simulator.result.misses == 6)
        #expect(simulator.occupied == 60)
        #expect(simulator.contains("a") && !simulator.contains("b") && !simulator.contains("c"))
        #expect(!simulator.contains("huge"))
    }

    @Test func badTraceLineIsNamed() {
        var simulator = CacheSimulator(factory: LRUPolicyFactory(), capacity: 10)
        #expect(
            throws: TroveError.invalidConfiguration(
                "trace line 2: size 'ten' is not a whole number of bytes; expected 'KEY [SIZE]'")
        ) {
            try simulator.replay(trace: Array("a 1\nb ten\n".utf8))
        }
        #expect(throws: TroveError.invalidConfiguration("trace line 1 has 3 fields; expected 'KEY [SIZE]'")) {
            try simulator.replay(trace: Array("a 1 2\n".utf8))
        }
    }

    @Test func missRatioIsMissesOverRequests() throws {
        var simulator = CacheSimulator(factory: FIFOPolicyFactory(), capacity: 2)
        for key in ["a", "a", "b", "a", "c", "a"] { simulator.request(key) }
        // a misses, hits, b misses, a hits (FIFO does not reorder), c evicts a, a misses again.
        #expect(simulator.result.hits == 2)
        #expect(simulator.result.missRatio == 4.0 / 6.0)
    }
}
