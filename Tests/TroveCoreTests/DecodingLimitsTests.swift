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

    @Test func decodedBytesLimitApplies() {
        let limits = DecodingLimits(maxPixels: .max, maxDecodedBytes: 4 * 100)
        #expect(throws: TroveError.self) { try limits.check(width: 11, height: 10) }
    }
}
