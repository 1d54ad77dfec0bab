import Testing
import TroveCore

/// A failure memory keeps a failure's `cause` as text; the content failures a server answers again come back
/// from it whole, and every other cause comes back as nothing rather than as a wrong failure.
@Suite struct TroveErrorRememberedCauseTests {
    static let rebuilt: [TroveError] = [
        .imageTooLarge(width: 10_000, height: 6000, limit: 50_000_000),
        .tooManyFrames(frames: 1200, limit: 1000),
        .tooLargeToDecode(needed: 1 << 30, limit: 256 << 20, setting: "decodeMemoryBudget"),
        .decodingFailed(format: .png, reason: "IDAT: invalid distance: too far back")
    ]

    @Test(arguments: rebuilt)
    func aContentFailureComesBackFromItsCause(_ error: TroveError) {
        #expect(TroveError(rememberedCause: error.cause) == error)
    }

    @Test func otherCausesComeBackAsNothing() {
        let others: [TroveError] = [
            .httpStatus(404, url: "https://example.com/a.png"),
            .unsupportedFormat(url: "https://example.com/image of 3x3 pixels", firstBytes: [0, 1]),
            .noDecoder(format: .bmp, url: "https://example.com/a.bmp"),
            .malformedURL(url: "data:", reason: "no payload")
        ]
        for error in others {
            #expect(TroveError(rememberedCause: error.cause) == nil, "\(error)")
        }
    }
}
