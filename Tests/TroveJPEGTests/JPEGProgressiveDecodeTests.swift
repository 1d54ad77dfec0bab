import Foundation
import Testing
import TroveCore
import TroveJPEG
import TroveTestSupport

/// The incremental decoder fed a file in growing prefixes, as a download delivers it.
@Suite struct JPEGProgressiveDecodeTests {
    /// Every preview the decoder gives when fed `data` `step` bytes more at a time.
    static func previews(of data: Data, step: Int, limits: DecodingLimits = .default) throws -> [Image] {
        try TroveTestSupport.previews(from: JPEGDecoder(), of: data, step: step, limits: limits)
    }

    @Test func aProgressiveFileShowsEachScanBetterThanTheLastAndEndsExactlyAsTheFullDecode() throws {
        let data = try JPEGFixtures.jpeg("progressive")
        let full = try JPEGDecoder().decode(data, limits: .default)
        let previews = try Self.previews(of: data, step: 64)
        #expect(previews.count >= 5)
        #expect(previews.allSatisfy { $0.width == 160 && $0.height == 107 && $0.sourceFormat == .jpeg })
        let quality = previews.map { psnr($0, full) }
        #expect(zip(quality, quality.dropFirst()).allSatisfy { $0 < $1 }, "PSNR per preview: \(quality)")
        // The last scan's preview is the image: what the one-shot decode gives, pixel for pixel.
        #expect(previews.last?.pixels == full.pixels)
    }

    @Test func theSameBytesGiveNoSecondPreview() throws {
        let data = try JPEGFixtures.jpeg("progressive")
        let decoder = JPEGDecoder().makeIncrementalDecoder(limits: .default)
        #expect(try decoder.preview(data.prefix(3)) == nil)
        #expect(try decoder.preview(data) != nil)
        #expect(try decoder.preview(data) == nil)
    }

    @Test func aBaselineFileShowsItsRowsSoFarOverTransparency() throws {
        let data = try JPEGFixtures.rocket()
        let full = try JPEGDecoder().decode(data, limits: .default)
        let previews = try Self.previews(of: data, step: 8192)
        #expect(previews.count >= 5)
        #expect(previews.last?.pixels == full.pixels)
        // Each preview is the final image's first rows (exactly: libjpeg outputs a row once it is final),
        // then nothing; more rows each time.
        #expect(areGrowingBands(previews, of: full))
    }

    @Test func cmykAndGrayPreviewsEndAsTheirFullDecodes() throws {
        for name in ["cmyk", "gray"] {
            let data = try JPEGFixtures.jpeg(name)
            let previews = try Self.previews(of: data, step: 500)
            #expect(previews.last?.pixels == (try JPEGDecoder().decode(data, limits: .default)).pixels, "\(name)")
        }
    }

    @Test func theLimitsApplyOnceTheHeaderHasArrived() throws {
        let data = try JPEGFixtures.jpeg("progressive")
        let decoder = JPEGDecoder().makeIncrementalDecoder(limits: DecodingLimits(maxPixels: 1000))
        #expect(throws: TroveError.imageTooLarge(width: 160, height: 107, limit: 1000)) {
            _ = try decoder.preview(data)
        }
        // Having failed, it stays quiet instead of decoding what it refused.
        #expect(throws: TroveError.self) { _ = try decoder.preview(data) }
    }

    @Test func tooManyScansIsRefused() throws {
        let data = try JPEGFixtures.jpeg("progressive")
        let decoder = JPEGDecoder(maxScans: 2).makeIncrementalDecoder(limits: .default)
        #expect(throws: TroveError.decodingFailed(format: .jpeg, reason: "the file has more than 2 progressive scans"))
        {
            _ = try decoder.preview(data)
        }
    }

    @Test func aDamagedFrameHeaderIsADecodingFailure() throws {
        var data = [UInt8](try JPEGFixtures.jpeg("progressive"))
        // SOF2 (FF C2): length (2), precision (1), then the height, here made zero.
        let sof = try #require((0..<data.count - 1).first { data[$0] == 0xFF && data[$0 + 1] == 0xC2 })
        data[sof + 5] = 0
        data[sof + 6] = 0
        #expect(throws: TroveError.self) { _ = try Self.previews(of: Data(data), step: 256) }
    }

    @Test func randomDamageEndsInADecodingFailureOrPreviewsNeverACrash() throws {
        let data = try JPEGFixtures.jpeg("progressive")
        for seed in 0..<40 {
            var damaged = [UInt8](data)
            var random = SplitMix64(seed: UInt64(seed))
            for _ in 0..<8 { damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(random.next() & 0xFF) }
            do {
                let previews = try Self.previews(of: Data(damaged), step: 128)
                #expect(previews.allSatisfy { $0.pixels.count == $0.width * $0.height * 4 })
            } catch let error as TroveError {
                switch error {
                case .decodingFailed(.jpeg, _), .imageTooLarge: break
                default: Issue.record("seed \(seed): unexpected error \(error)")
                }
            }
        }
    }
}
