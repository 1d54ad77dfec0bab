import Testing
import TroveCore

@Suite struct DecodingLimitsTests {
    @Test func refusesOverTheLimitAndOverflow() throws {
        let limits = DecodingLimits(maxPixels: 1_000_000)
        try limits.check(width: 1000, height: 1000)
        #expect(throws: TroveError.imageTooLarge(width: 1001, height: 1000, limit: 1_000_000)) {
            try limits.check(width: 1001, height: 1000)
        }
        #expect(throws: TroveError.imageTooLarge(width: Int.max, height: 3, limit: 1_000_000)) {
            try limits.check(width: Int.max, height: 3)
        }
        let error = TroveError.imageTooLarge(width: 100_000, height: 100_000, limit: 100_000_000)
        #expect(error.description.contains("100000x100000"))
        #expect(error.description.contains("maxPixels"))
    }

    @Test func decodedBytesLimitApplies() throws {
        let limits = DecodingLimits(maxPixels: .max, maxDecodedBytes: 4 * 100)
        try limits.check(width: 10, height: 10)
        // The limit reported is the one that bound: 400 bytes / 4 bytes per pixel = 100 pixels.
        #expect(throws: TroveError.imageTooLarge(width: 11, height: 10, limit: 100)) {
            try limits.check(width: 11, height: 10)
        }
        // A huge maxPixels must not trap on overflow.
        #expect(throws: TroveError.self) {
            try DecodingLimits(maxPixels: .max, maxDecodedBytes: .max).check(width: Int.max / 2, height: 3)
        }
    }
}
