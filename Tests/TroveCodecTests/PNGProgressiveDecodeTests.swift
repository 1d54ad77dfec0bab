import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// The incremental PNG decoder fed a file in growing prefixes, as a download delivers it.
@Suite struct PNGProgressiveDecodeTests {
    /// Every preview the decoder gives when fed `data` `step` bytes more at a time.
    static func previews(of data: Data, step: Int, limits: DecodingLimits = .default) throws -> [Image] {
        try TroveTestSupport.previews(from: PNGDecoder(), of: data, step: step, limits: limits)
    }

    static func adam7() throws -> Data {
        try Data(contentsOf: Fixtures.images.appendingPathComponent("adam7.png"))
    }

    @Test func anInterlacedFileShowsEachPassBetterThanTheLastAndEndsExactlyAsTheFullDecode() throws {
        let data = try Self.adam7()
        let full = try PNGDecoder().decode(data, limits: .default)
        let previews = try Self.previews(of: data, step: 256)
        // Seven passes, each needing more than 256 new bytes of this file.
        #expect(previews.count == 7)
        #expect(previews.allSatisfy { $0.width == 160 && $0.height == 107 && $0.sourceFormat == .png })
        let quality = previews.map { psnr($0, full) }
        #expect(zip(quality, quality.dropFirst()).allSatisfy { $0 < $1 }, "PSNR per preview: \(quality)")
        #expect(previews.last?.pixels == full.pixels)
    }

    @Test func theFirstPassShowsAsEightByEightBlocks() throws {
        let data = try Self.adam7()
        let full = try PNGDecoder().decode(data, limits: .default)
        let first = try #require(try Self.previews(of: data, step: 64).first)
        for (x, y) in [(0, 0), (7, 7), (13, 5), (159, 106), (100, 60)] {
            let anchor = ((y / 8 * 8) * 160 + x / 8 * 8) * 4
            let at = (y * 160 + x) * 4
            #expect(Array(first.pixels[at..<at + 4]) == Array(full.pixels[anchor..<anchor + 4]), "(\(x), \(y))")
        }
    }

    @Test func everyInterlacedPngSuiteFileEndsAsItsFullDecode() throws {
        let names = Fixtures.pngSuiteNames.filter { $0.hasPrefix("basi") }
        #expect(names.count == 15)
        for name in names {
            let data = try Fixtures.pngSuite(name)
            let full = try PNGDecoder().decode(data, limits: .default)
            let previews = try Self.previews(of: data, step: 7)
            #expect(!previews.isEmpty, "\(name)")
            #expect(previews.last?.pixels == full.pixels, "\(name)")
        }
    }

    @Test func aFileThatIsNotInterlacedShowsTheRowsSoFarOverTransparency() throws {
        let data = try Data(contentsOf: Fixtures.images.appendingPathComponent("chelsea.png"))
        let full = try PNGDecoder().decode(data, limits: .default)
        let previews = try Self.previews(of: data, step: 16_384)
        #expect(previews.count >= 5)
        #expect(previews.last?.pixels == full.pixels)
        // Each preview is a band of the final rows, then nothing: more rows each time.
        #expect(areGrowingBands(previews, of: full))
    }

    @Test func everyPngSuiteFileFedInPiecesEndsAsItsFullDecode() throws {
        for name in Fixtures.referenceIndex.map(\.name) {
            let data = try Fixtures.pngSuite(name)
            let full = try PNGDecoder().decode(data, limits: .default)
            #expect(try Self.previews(of: data, step: 5).last?.pixels == full.pixels, "\(name)")
        }
    }

    @Test func theLimitsApplyOnceTheHeaderHasArrived() throws {
        let decoder = PNGDecoder().makeIncrementalDecoder(limits: DecodingLimits(maxPixels: 1000))
        let data = try Self.adam7()
        // The signature and IHDR (8 + 25 bytes) are enough to refuse it.
        #expect(throws: TroveError.imageTooLarge(width: 160, height: 107, limit: 1000)) {
            _ = try decoder.preview(data.prefix(33))
        }
    }

    @Test func damagedImageDataIsADecodingFailureNeverACrash() throws {
        var data = [UInt8](try Self.adam7())
        // Inside the first IDAT's zlib stream (after the 2-byte zlib header).
        for offset in 60..<90 { data[offset] = 0xFF }
        #expect(throws: TroveError.self) { _ = try Self.previews(of: Data(data), step: 256) }
        var random = SplitMix64(seed: 7)
        for _ in 0..<30 {
            var damaged = [UInt8](try Self.adam7())
            for _ in 0..<6 { damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(random.next() & 0xFF) }
            do {
                _ = try Self.previews(of: Data(damaged), step: 512)
            } catch let error as TroveError {
                if case .decodingFailed(.png, _) = error { continue }
                if case .imageTooLarge = error { continue }
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
