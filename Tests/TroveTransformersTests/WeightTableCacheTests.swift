import Testing

@testable import TroveTransformers

/// Resizes of one geometry share one weight table; the cache stays within its count and byte bounds.
@Suite struct WeightTableCacheTests {
    func table(_ cache: WeightTableCache, input: Int, count: Int) throws -> WeightTable {
        try cache.table(inputSize: input, boxStart: 0, boxLength: Double(input), count: count, filter: .lanczos3)
    }

    @Test func theSameGeometryGetsTheSameTable() throws {
        let cache = WeightTableCache(capacity: 4, byteLimit: 1 << 20)
        let first = try table(cache, input: 306, count: 300)
        #expect(try table(cache, input: 306, count: 300) === first)
        #expect(try table(cache, input: 306, count: 299) !== first, "another geometry")
        let other = try cache.table(inputSize: 306, boxStart: 0, boxLength: 306, count: 300, filter: .bicubic)
        #expect(other !== first, "another filter")
    }

    @Test func aFullCacheStartsOver() throws {
        let cache = WeightTableCache(capacity: 2, byteLimit: 1 << 20)
        let first = try table(cache, input: 100, count: 50)
        _ = try table(cache, input: 100, count: 40)
        _ = try table(cache, input: 100, count: 30)  // the third: the cache starts over
        #expect(try table(cache, input: 100, count: 50) !== first)
    }

    @Test func aTableOverAnEighthOfTheByteLimitIsNeverKept() throws {
        // 2000 outputs of 20 taps each (a 3x shrink): about 190 KB, over an eighth of 256 KB.
        let cache = WeightTableCache(capacity: 64, byteLimit: 256 << 10)
        let big = try table(cache, input: 6000, count: 2000)
        #expect(big.byteCount > (256 << 10) / 8)
        #expect(try table(cache, input: 6000, count: 2000) !== big)
        let small = try table(cache, input: 60, count: 20)
        #expect(try table(cache, input: 60, count: 20) === small)
    }
}
