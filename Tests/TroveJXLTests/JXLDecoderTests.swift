import Foundation
import Testing
import TroveCore
import TroveJXL
import TroveTestSupport

/// Decoding against libjxl's own decodes (pillow-jxl-plugin) of the fixtures: lossless exactly, lossy
/// within 45 dB, the animation frame by frame with its delays; header-only info; colour and orientation.
@Suite struct JXLDecoderTests {
    let decoder = JXLDecoder()

    @Test func sniffsTheCodestreamAndTheContainer() throws {
        #expect(decoder.canDecode(try JXLFixtures.jxl("lossless-alpha")))
        #expect(decoder.canDecode(try JXLFixtures.jxl("lossless-alpha-container")))
        #expect(decoder.canDecode(Data([0xFF, 0x0A])))
        #expect(!decoder.canDecode(Data([0xFF, 0xD8, 0xFF, 0xE0])))  // JPEG
        #expect(!decoder.canDecode(Data([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20])))  // half a signature
        #expect(!decoder.canDecode(Data("RIFF\0\0\0\0WEBP".utf8)))
    }

    @Test(arguments: ["lossless-alpha", "lossless-alpha-container"])
    func losslessDecodesExactly(name: String) throws {
        let image = try decoder.decode(try JXLFixtures.jxl(name), limits: .default)
        let reference = try JXLFixtures.reference(name)
        #expect(image.width == 96 && image.height == 96 && image.pixelFormat == .rgba8)
        #expect(image.sourceFormat == .jxl && image.frames.isEmpty)
        #expect(image.pixels == reference.pixels)
        // Real partial alpha made it through.
        #expect(Set(stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }).count > 10)
    }

    @Test(arguments: ["lossy-photo", "lossy-alpha"])
    func lossyIsWithin45dBOfLibjxl(name: String) throws {
        let entry = try JXLFixtures.manifest(name)
        let image = try decoder.decode(try JXLFixtures.jxl(name), limits: .default)
        let reference = try JXLFixtures.reference(name)
        #expect(image.width == entry.width && image.height == entry.height)
        let rgb = JXLFixtures.psnr(image.pixels, reference.pixels)
        let alpha = JXLFixtures.psnr(image.pixels, reference.pixels, channels: 3..<4)
        #expect(rgb >= 45, "RGB \(rgb) dB against libjxl's decode")
        #expect(alpha >= 45, "alpha \(alpha) dB against libjxl's decode")
    }

    @Test func animationDecodesEveryFrameWithItsDelayAndLoopCount() throws {
        let entry = try JXLFixtures.manifest("animated")
        let image = try decoder.decode(try JXLFixtures.jxl("animated"), limits: .default)
        #expect(image.width == entry.width && image.height == entry.height)
        #expect(image.frames.count == entry.frames)
        #expect(image.loopCount == entry.loop)
        #expect(image.frames.map(\.delay) == entry.delays_ms?.map { Duration.milliseconds($0) })
        for (index, frame) in image.frames.enumerated() {
            #expect(frame.pixels == (try JXLFixtures.reference("animated", frame: index)).pixels, "frame \(index)")
        }
        #expect(image.pixels == image.frames.first?.pixels)
    }

    @Test func infoReadsOnlyTheHeader() throws {
        let still = try JXLFixtures.jxl("lossy-photo")
        // The first 120 bytes hold the container's boxes and the codestream's headers, none of the image.
        let header = Data(still.prefix(120))
        #expect(throws: TroveError.self) { try decoder.decode(header, limits: .default) }
        #expect(try decoder.info(header) == ImageInfo(format: .jxl, width: 160, height: 107, frameCount: 1))
        let animated = try decoder.info(try JXLFixtures.jxl("animated"))
        #expect(animated == ImageInfo(format: .jxl, width: 64, height: 48, frameCount: 3))
    }

    @Test func hugeDeclaredDimensionsAreRefusedBeforeAllocating() throws {
        // 2^30 x 2^30 RGBA8 would be 4 EiB: reaching an allocation would crash the test process.
        let header = JXLFixtures.codestreamHeader(width: 1 << 30, height: 1 << 30)
        #expect(try decoder.info(header) == ImageInfo(format: .jxl, width: 1 << 30, height: 1 << 30))
        #expect(throws: TroveError.imageTooLarge(width: 1 << 30, height: 1 << 30, limit: 100_000_000)) {
            try decoder.decode(header, limits: .default)
        }
        let limits = DecodingLimits(maxPixels: 96 * 95)
        #expect(throws: TroveError.imageTooLarge(width: 96, height: 96, limit: 96 * 95)) {
            try decoder.decode(try JXLFixtures.jxl("lossless-alpha"), limits: limits)
        }
    }

    @Test func framesPastMaxFramesAreDropped() throws {
        // 3 frames of 64x48: the first frames as the whole decode has them, for every limit.
        #expect(try decoder.limitsNotKeepingFirstFrames(of: try JXLFixtures.jxl("animated"), frames: 3) == [])
    }

    @Test func theKeptFramesMustFitTheByteLimit() throws {
        let data = try JXLFixtures.jxl("animated")
        // Three 64x48 RGBA8 frames are 36,864 bytes; two fit.
        let limit = 64 * 48 * 4 * 2 + 100
        #expect(
            throws: TroveError.tooLargeToDecode(
                needed: 3 * 64 * 48 * 4, limit: limit, setting: "DecodingLimits.maxDecodedBytes")
        ) {
            try decoder.decode(data, limits: DecodingLimits(maxDecodedBytes: limit))
        }
        #expect(
            try decoder.decode(data, limits: DecodingLimits(maxDecodedBytes: limit, maxFrames: 2)).frames.count == 2)
    }

    @Test func truncatedFilesFailWithAClearError() throws {
        let data = try JXLFixtures.jxl("lossy-photo")
        for length in [data.count / 2, data.count - 1] {
            let error = #expect(throws: TroveError.self) { try decoder.decode(data.prefix(length), limits: .default) }
            guard case .decodingFailed(let format, let reason)? = error else {
                Issue.record("expected decodingFailed, got \(String(describing: error))")
                continue
            }
            #expect(format == .jxl)
            #expect(reason.contains("JPEG XL") && reason.contains("the image"), "\(reason)")
            #expect(reason.contains("truncated") || reason.contains("cut short"), "\(reason)")
        }
        let empty = #expect(throws: TroveError.self) { try decoder.decode(Data(), limits: .default) }
        #expect(empty == .decodingFailed(format: .jxl, reason: "the file is empty"))
        let header = #expect(throws: TroveError.self) { try decoder.info(Data([0xFF, 0x0A, 0x00])) }
        #expect(header.map { "\($0)" }?.contains("the header") == true, "\(String(describing: header))")
    }

    @Test func damagedHeadersFailWithoutCrashing() throws {
        var data = try JXLFixtures.jxl("lossless-alpha")
        // Every byte of the headers set to FF in turn: each decode either succeeds or throws decodingFailed.
        for offset in 2..<min(64, data.count) {
            var damaged = data
            damaged[offset] = 0xFF
            do {
                _ = try decoder.decode(damaged, limits: DecodingLimits(maxPixels: 4_000_000))
            } catch let error as TroveError {
                switch error {
                case .decodingFailed(.jxl, _), .imageTooLarge, .tooLargeToDecode: break
                default: Issue.record("byte \(offset): \(error)")
                }
            }
        }
        data[data.count / 2] ^= 0x55
        _ = try? decoder.decode(data, limits: .default)
    }

    @Test func sRGBFilesReportCICP() throws {
        let image = try decoder.decode(try JXLFixtures.jxl("lossless-alpha"), limits: .default)
        #expect(
            image.colorDescription
                == ColorDescription(cicp: .init(primaries: 1, transfer: 13, matrix: 0, fullRange: true)))
    }
}

extension JXLDecoderTests {
    @Test func greyIsSpreadToRGB() throws {
        let image = try decoder.decode(try JXLFixtures.jxl("gray"), limits: .default)
        let reference = try JXLFixtures.reference("gray")
        #expect(image.width == 64 && image.height == 48)
        #expect(image.pixels == reference.pixels)
        let pixels = image.pixels
        let grey = stride(from: 0, to: pixels.count, by: 4).allSatisfy { (i: Int) -> Bool in
            pixels[i] == pixels[i + 1] && pixels[i] == pixels[i + 2]
        }
        #expect(grey)
        #expect(image.colorDescription?.cicp?.transfer == 13)
    }
}
