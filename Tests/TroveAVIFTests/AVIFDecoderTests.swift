import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveAVIF

/// Files Pillow (libavif 1.x) wrote, and 10- and 12-bit files libavif wrote, decode like Pillow decodes them;
/// sequences keep every frame and delay; limits refuse before pixels are decoded; bad data is an error.
@Suite struct AVIFDecoderTests {
    let decoder = AVIFDecoder()

    @Test(arguments: ["photo", "alpha", "depth10", "depth12"])
    func stillDecodesLikePillow(name: String) throws {
        let entry = try #require(AVIFFixtures.stills[name])
        let image = try decoder.decode(try AVIFFixtures.data(entry.file), limits: .default)
        #expect(image.width == entry.width && image.height == entry.height)
        #expect(image.pixelFormat == .rgba8 && image.bytesPerRow == image.width * 4 && image.sourceFormat == .avif)
        #expect(image.frames.isEmpty && image.orientation == .up)
        let reference = try AVIFFixtures.png(entry.references[0])
        // Same AV1 samples (AV1 decoding is exact); only YUV-to-RGB rounding and chroma upsampling differ.
        #expect(AVIFFixtures.psnr(image.pixels, reference.pixels) >= 45)
        let opaque = stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 }
        #expect(opaque == !entry.alpha)
    }

    @Test func alphaIsKept() throws {
        let entry = AVIFFixtures.manifest.alpha
        let image = try decoder.decode(try AVIFFixtures.data(entry.file), limits: .default)
        let reference = try AVIFFixtures.png(entry.references[0])
        let source = try AVIFFixtures.png(try #require(entry.source))
        #expect(AVIFFixtures.psnr(image.pixels, reference.pixels, channels: 3..<4) >= 45)
        #expect(AVIFFixtures.psnr(image.pixels, source.pixels, channels: 3..<4) >= 40)
        // The source's corners are fully transparent and its middle opaque.
        #expect(image.pixels[3] <= 8)
        #expect(image.pixels[(32 * image.width + 48) * 4 + 3] >= 247)
    }

    @Test(arguments: ["depth10", "depth12"])
    func highBitDepthReducesToEightBits(name: String) throws {
        let entry = try #require(AVIFFixtures.stills[name])
        let data = try AVIFFixtures.data(entry.file)
        let image = try decoder.decode(data, limits: .default)
        let source = try AVIFFixtures.png(try #require(entry.source))
        // Written at quantizer 8 from these 8-bit pixels: a rescaling bug (wrong shift, clipped range)
        // would be far below this.
        #expect(AVIFFixtures.psnr(image.pixels, source.pixels, channels: 0..<3) >= 38)
        // The file really is high bit depth (the 'pixi' box says so; libavif reads the depth).
        let parsed = try data.withUnsafeBytes { bytes in
            let session = try LibavifDecoder(bytes, limits: nil, maxThreads: 1)
            try session.parse()
            return Int(session.raw.pointee.image.pointee.depth)
        }
        #expect(parsed == entry.depth)
    }

    @Test func sequenceKeepsEveryFrameAndDelay() throws {
        let entry = AVIFFixtures.manifest.sequence
        let image = try decoder.decode(try AVIFFixtures.data(entry.file), limits: .default)
        #expect(image.width == entry.width && image.height == entry.height)
        #expect(image.frames.count == entry.frames)
        #expect(image.frames.map(\.delay) == (entry.durationsMilliseconds ?? []).map { .milliseconds($0) })
        #expect(
            image.frames.map(\.delay) == [
                .milliseconds(100), .milliseconds(200), .milliseconds(150),
                .milliseconds(50)
            ])
        #expect(image.pixels == image.frames.first?.pixels)
        #expect(image.loopCount == 0)
        for (frame, file) in zip(image.frames, entry.references) {
            let reference = try AVIFFixtures.png(file)
            #expect(AVIFFixtures.psnr(frame.pixels, reference.pixels) >= 45, "frame \(file)")
        }
        // The frames differ (a square moves), so they are not one frame repeated.
        #expect(Set(image.frames.map(\.pixels)).count == entry.frames)
    }

    @Test func infoReadsTheContainerOnly() throws {
        let photo = try decoder.info(try AVIFFixtures.data("photo.avif"))
        #expect(photo == ImageInfo(format: .avif, width: 160, height: 107, frameCount: 1))
        let sequence = try decoder.info(try AVIFFixtures.data("sequence.avif"))
        #expect(sequence == ImageInfo(format: .avif, width: 64, height: 48, frameCount: 4))
        #expect(throws: TroveError.self) { try decoder.info(Data("not an avif".utf8)) }
    }

    @Test func rotationAndMirrorBecomeTheOrientationPillowReads() throws {
        #expect(AVIFFixtures.manifest.orientations.count == 4)
        for (file, value) in AVIFFixtures.manifest.orientations {
            let image = try decoder.decode(try AVIFFixtures.data(file), limits: .default)
            #expect(image.orientation == ExifOrientation(rawValue: value), "\(file)")
            #expect(image.width == 32 && image.height == 24, "pixels stay as stored")
        }
    }

    @Test func sizeOverTheLimitIsRefusedFromTheContainer() throws {
        let data = try AVIFFixtures.data("photo.avif")  // 160 x 107
        #expect(throws: TroveError.imageTooLarge(width: 160, height: 107, limit: 10_000)) {
            try decoder.decode(data, limits: DecodingLimits(maxPixels: 10_000))
        }
        // The byte limit binds at 4 bytes a pixel.
        #expect(throws: TroveError.imageTooLarge(width: 160, height: 107, limit: 10_000)) {
            try decoder.decode(data, limits: DecodingLimits(maxDecodedBytes: 40_000))
        }
        // Exactly at the limit is allowed.
        let image = try decoder.decode(data, limits: DecodingLimits(maxPixels: 160 * 107))
        #expect(image.pixels.count == 160 * 107 * 4)
    }

    /// Found by FuzzRequestAVIF (Tests/Fixtures/fuzz-regressions): a file libavif refuses, whose boxes declare
    /// an `ispe` of 4294967295 x 4294967295 beside sane ones. Reading the declared size for the error multiplied
    /// the sides as Int, which overflowed and trapped (debug and release). The area is now a UInt64.
    @Test func theLargestDeclaredSizeOfTwoMaximalSidesIsNoTrap() throws {
        let data = try Data(contentsOf: Fixtures.url("fuzz-regressions/ispe-4294967295-squared.avif"))
        let largest = data.withUnsafeBytes { AVIFDeclaredSize.largest(in: $0) }
        #expect(largest?.width == 0xFFFF_FFFF && largest?.height == 0xFFFF_FFFF)
        #expect(throws: TroveError.imageTooLarge(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF, limit: 100_000_000)) {
            try decoder.decode(data, limits: .default)
        }
    }

    @Test func framesPastMaxFramesAreDropped() throws {
        // 4 frames of 64x48: the first frames as the whole decode has them, for every limit.
        #expect(try decoder.limitsNotKeepingFirstFrames(of: try AVIFFixtures.data("sequence.avif"), frames: 4) == [])
        // A still image is one image whatever maxFrames says.
        let still = try decoder.decode(try AVIFFixtures.data("photo.avif"), limits: DecodingLimits(maxFrames: 0))
        #expect(still.width == 160)
    }

    @Test func theKeptFramesMustFitTheByteLimit() throws {
        let data = try AVIFFixtures.data("sequence.avif")  // 4 frames of 64 x 48: 12,288 bytes each
        // 4 frames are over 30,000 bytes, though one frame is well within it; 2 fit.
        #expect(
            throws: TroveError.tooLargeToDecode(
                needed: 4 * 12_288, limit: 30_000, setting: "DecodingLimits.maxDecodedBytes")
        ) {
            try decoder.decode(data, limits: DecodingLimits(maxDecodedBytes: 30_000))
        }
        #expect(
            try decoder.decode(data, limits: DecodingLimits(maxDecodedBytes: 30_000, maxFrames: 2)).frames.count == 2)
    }

    @Test func garbageNamesAVIFAndLibavifsReason() {
        var bytes = [UInt8]([0, 0, 0, 0x20]) + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8)
        bytes += (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        #expect {
            try decoder.decode(Data(bytes), limits: .default)
        } throws: { error in
            guard case let TroveError.decodingFailed(format, reason) = error else { return false }
            return format == .avif && reason.hasPrefix("reading the container: ") && reason.count > 24
        }
        #expect(throws: TroveError.decodingFailed(format: .avif, reason: "the file is empty")) {
            try decoder.decode(Data(), limits: .default)
        }
    }

    @Test func everyTruncationIsAnError() throws {
        let data = [UInt8](try AVIFFixtures.data("photo.avif"))
        for length in stride(from: 0, to: data.count - 1, by: 31) {
            #expect(
                "prefix of \(length) bytes",
                performing: {
                    try decoder.decode(Data(data[0..<length]), limits: .default)
                },
                throws: { error in
                    guard case let TroveError.decodingFailed(format, _) = error else { return false }
                    return format == .avif
                })
        }
        let cut = Data(data[0..<data.count / 2])
        #expect(
            throws: TroveError.decodingFailed(
                format: .avif,
                reason:
                    "reading the container: BMFF parsing failed (Exceeded avifIO's sizeHint, possibly truncated data)")
        ) {
            try decoder.decode(cut, limits: .default)
        }
    }

    @Test func damagedBytesNeverCrash() throws {
        let original = [UInt8](try AVIFFixtures.data("alpha.avif"))
        var damager = ByteDamager(seed: 0x1234_5678_9ABC_DEF1)
        for _ in 0..<150 {
            let bytes = damager.damaged(original)
            do {
                let image = try decoder.decode(Data(bytes), limits: DecodingLimits(maxPixels: 1 << 20))
                #expect(image.pixels.count == image.width * image.height * 4)
            } catch is TroveError {
            }
        }
    }

    @Test func recognisesAVIFBrands() throws {
        func ftyp(_ major: String, _ compatible: [String]) -> Data {
            let size = 16 + 4 * compatible.count
            var bytes: [UInt8] = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
            for brand in compatible { bytes += Array(brand.utf8) }
            return Data(bytes + [0, 0, 0, 8] + Array("meta".utf8))
        }
        for file in ["photo.avif", "alpha.avif", "depth10.avif", "depth12.avif", "sequence.avif"] {
            #expect(decoder.canDecode(try AVIFFixtures.data(file).prefix(ImageFormat.sniffLength)), "\(file)")
        }
        #expect(decoder.canDecode(ftyp("avif", [])))
        #expect(decoder.canDecode(ftyp("avis", ["msf1"])))
        #expect(decoder.canDecode(ftyp("mif1", ["miaf", "avif"]).prefix(ImageFormat.sniffLength)))
        #expect(decoder.canDecode(ftyp("msf1", ["iso8", "avis"])))
        #expect(!decoder.canDecode(ftyp("mif1", ["heic", "miaf"])))
        #expect(!decoder.canDecode(ftyp("heic", ["avif"])))
        #expect(!decoder.canDecode(ftyp("mif1", [])))
        // A box size of 0 runs to the end of the file.
        #expect(decoder.canDecode(Data([0, 0, 0, 0] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("avif".utf8))))
        // A brand past the box's own end is not one of its brands.
        #expect(!decoder.canDecode(Data([0, 0, 0, 16] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("avif".utf8))))
        #expect(!decoder.canDecode(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        #expect(!decoder.canDecode(Data()))
        #expect(!decoder.canDecode(Data("ftypavif".utf8)))
        #expect(!decoder.canDecode(Data([0, 0, 0, 0x20] + Array("ftypavi".utf8))))
        // A slice whose indices do not start at zero.
        let padded = Data([9, 9, 9]) + ftyp("avif", [])
        #expect(decoder.canDecode(padded[3...]))
    }
}
