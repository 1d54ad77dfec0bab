import Foundation
import Testing
import TroveAVIF
import TroveCore
import TroveTestSupport

@testable import TroveHEIF

/// Files pillow-heif wrote decode as pillow-heif (libheif 1.23) decodes them; rotation and mirroring are
/// applied once; the header alone gives the size; limits refuse before pixels are decoded; bad data is an
/// error naming HEIC.
@Suite struct HEIFDecoderTests {
    let decoder = HEIFDecoder()

    @Test(arguments: ["photo", "alpha", "depth10"])
    func stillDecodesLikePillowHeif(name: String) throws {
        let fixtures = HEIFFixtures.manifest
        let entry = [fixtures.photo, fixtures.alpha, fixtures.depth10][
            ["photo", "alpha", "depth10"].firstIndex(of: name)!]
        let image = try decoder.decode(try HEIFFixtures.data(entry.file), limits: .default)
        #expect([image.width, image.height] == entry.size)
        #expect(image.pixelFormat == .rgba8 && image.bytesPerRow == image.width * 4 && image.sourceFormat == .heic)
        #expect(image.frames.isEmpty && image.orientation == .up)
        let reference = try HEIFFixtures.png(entry.reference)
        // Same HEVC samples (decoding is exact); only YCbCr-to-RGB rounding and chroma upsampling may differ.
        #expect(psnr(image, reference, channels: [0, 1, 2, 3]) >= 45)
        let opaque = stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 }
        #expect(opaque == (name != "alpha"))
    }

    @Test func alphaIsKept() throws {
        let image = try decoder.decode(try HEIFFixtures.data("alpha.heic"), limits: .default)
        let reference = try HEIFFixtures.png("alpha.png")
        let source = try HEIFFixtures.png("alpha-source.png")
        #expect(psnr(image, reference, channels: [3]) >= 45)
        #expect(psnr(image, source, channels: [3]) >= 35)
        // The source's corners are fully transparent and its middle opaque.
        #expect(image.pixels[3] <= 8)
        #expect(image.pixels[(32 * image.width + 48) * 4 + 3] >= 247)
    }

    @Test func rotationAndMirrorAreAppliedOnce() throws {
        #expect(HEIFFixtures.manifest.orientations.count == 4)
        for (file, entry) in HEIFFixtures.manifest.orientations {
            let data = try HEIFFixtures.data(file)
            let image = try decoder.decode(data, limits: .default)
            // libheif turned the pixels, so nothing is left for an `orient` transform to do.
            #expect(image.orientation == .up, "\(file)")
            #expect([image.width, image.height] == entry.size, "\(file)")
            #expect(psnr(image, try HEIFFixtures.png(entry.reference)) >= 45, "\(file)")
            // The EXIF tag that repeats the boxes is still readable.
            #expect(try decoder.exifOrientation(data) == ExifOrientation(rawValue: entry.exif), "\(file)")
        }
        // 48x32 stored with a blue block top left; orientation 6 turns it a quarter clockwise, so the
        // block is at the top right of the 32x48 result.
        let turned = try decoder.decode(try HEIFFixtures.data("orientation6.heic"), limits: .default)
        let topRight = (5 * turned.width + 28) * 4, topLeft = (5 * turned.width + 3) * 4
        #expect(turned.pixels[topRight + 2] > 180 && turned.pixels[topRight] < 80)
        #expect(turned.pixels[topLeft + 2] < 120)
        #expect(try decoder.exifOrientation(try HEIFFixtures.data("photo.heic")) == nil)
    }

    @Test func infoReadsTheHeaderOnly() throws {
        let data = try HEIFFixtures.data("photo.heic")
        #expect(try decoder.info(data) == ImageInfo(format: .heic, width: 160, height: 107, frameCount: 1))
        #expect(
            try decoder.info(try HEIFFixtures.data("orientation6.heic"))
                == ImageInfo(format: .heic, width: 32, height: 48))
        // The coded picture ('mdat', last) zeroed: info never reads it, the decode fails on it.
        var bytes = [UInt8](data)
        let mdat = try #require(
            (0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("mdat".utf8) })
        for index in (mdat + 4)..<bytes.count { bytes[index] = 0 }
        let blank = Data(bytes)
        #expect(try decoder.info(blank) == ImageInfo(format: .heic, width: 160, height: 107))
        #expect {
            try decoder.decode(blank, limits: .default)
        } throws: { error in
            guard case let TroveError.decodingFailed(format, reason) = error else { return false }
            return format == .heic && reason.hasPrefix("decoding the image: ")
        }
        #expect(throws: TroveError.self) { try decoder.info(Data("not a heic".utf8)) }
    }

    @Test func hugeDeclaredSizeIsRefusedFromTheHeader() throws {
        // The grid image's own 'ispe' (its tiles keep theirs): 60000 x 50000 is 3 gigapixels, 12 GB of RGBA
        // if it were allocated. (photo.heic's displayed size comes from its 'clap' crop instead.)
        let large = [UInt8](try HEIFFixtures.data("large.heic"))
        let huge = Data(
            HEIFFixtures.declaring(
                width: 60_000, height: 50_000, in: large, replacing: PixelSize(width: 4032, height: 3024)))
        #expect(throws: TroveError.imageTooLarge(width: 60_000, height: 50_000, limit: 100_000_000)) {
            try decoder.decode(huge, limits: .default)
        }
        #expect(try decoder.info(huge) == ImageInfo(format: .heic, width: 60_000, height: 50_000))
        // A side past libheif's own gate (the pixel limit) is refused while the container is read.
        let photo = [UInt8](try HEIFFixtures.data("photo.heic"))
        let wide = Data(HEIFFixtures.declaring(width: 0xFFFF_FFF0, height: 1, in: photo))
        #expect {
            try decoder.decode(wide, limits: .default)
        } throws: { error in
            guard case let TroveError.decodingFailed(format, reason) = error else { return false }
            return format == .heic && reason.hasPrefix("reading the container: ") && reason.contains("exceeds")
        }
    }

    @Test func sizeOverTheLimitIsRefused() throws {
        let data = try HEIFFixtures.data("photo.heic")  // 160 x 107
        #expect(throws: TroveError.imageTooLarge(width: 160, height: 107, limit: 10_000)) {
            try decoder.decode(data, limits: DecodingLimits(maxPixels: 10_000))
        }
        // The byte limit binds at 4 bytes a pixel.
        #expect(throws: TroveError.imageTooLarge(width: 160, height: 107, limit: 10_000)) {
            try decoder.decode(data, limits: DecodingLimits(maxDecodedBytes: 40_000))
        }
        // Exactly at the limit is allowed; a still image is one frame whatever maxFrames says.
        let image = try decoder.decode(data, limits: DecodingLimits(maxPixels: 160 * 107, maxFrames: 0))
        #expect(image.pixels.count == 160 * 107 * 4)
    }

    @Test func everyTruncationIsAClearError() throws {
        let data = [UInt8](try HEIFFixtures.data("photo.heic"))
        for length in stride(from: 0, to: data.count - 1, by: 97) {
            #expect(
                "prefix of \(length) bytes",
                performing: { try decoder.decode(Data(data[0..<length]), limits: .default) },
                throws: { error in
                    guard case let TroveError.decodingFailed(format, reason) = error else { return false }
                    return format == .heic && !reason.isEmpty
                })
        }
        #expect(throws: TroveError.decodingFailed(format: .heic, reason: "the file is empty")) {
            try decoder.decode(Data(), limits: .default)
        }
        let cut = Data(data[0..<data.count - 200])
        #expect {
            try decoder.decode(cut, limits: .default)
        } throws: { error in
            guard case let TroveError.decodingFailed(format, reason) = error else { return false }
            return format == .heic && reason.hasPrefix("reading the container: ") && reason.count > 30
        }
    }

    @Test func damagedBytesNeverCrash() throws {
        let original = [UInt8](try HEIFFixtures.data("alpha.heic"))
        var damager = ByteDamager(seed: 0x4845_4946_0000_0001)
        for _ in 0..<150 {
            let bytes = damager.damaged(original)
            do {
                let image = try decoder.decode(Data(bytes), limits: DecodingLimits(maxPixels: 1 << 20))
                #expect(image.pixels.count == image.width * image.height * 4)
            } catch is TroveError {
            }
        }
    }

    @Test func colourDescriptionComesFromTheColrBox() throws {
        let manifest = HEIFFixtures.manifest
        let icc = try decoder.decode(try HEIFFixtures.data(manifest.icc.file), limits: .default)
        let profile = [UInt8](try HEIFFixtures.data(try #require(manifest.icc.profile)))
        #expect(icc.colorDescription == ColorDescription(iccProfile: profile))
        for file in [manifest.nclx.file, "photo.heic"] {
            let image = try decoder.decode(try HEIFFixtures.data(file), limits: .default)
            let expected = try #require(file == "photo.heic" ? manifest.photoNCLX : manifest.nclx.nclx)
            let cicp = try #require(image.colorDescription?.cicp, "\(file)")
            #expect(
                [Int(cicp.primaries), Int(cicp.transfer), Int(cicp.matrix), cicp.fullRange ? 1 : 0] == expected,
                "\(file)")
            #expect(image.colorDescription?.iccProfile == nil)
        }
    }

    @Test func embeddedThumbnailIsOfferedSeparately() throws {
        let data = try HEIFFixtures.data("thumbnail.heic")
        let thumbnail = try #require(try decoder.thumbnail(data))
        // heif-enc -t 64: the longer side 64, the aspect ratio of the 160x107 image.
        #expect(thumbnail.width == 64 && abs(thumbnail.height - 43) <= 1 && thumbnail.sourceFormat == .heic)
        // It is the same picture: its mean colour is the full image's.
        let full = try decoder.decode(data, limits: .default)
        func mean(_ image: Image, _ channel: Int) -> Double {
            let values = stride(from: channel, to: image.pixels.count, by: 4).map { Double(image.pixels[$0]) }
            return values.reduce(0, +) / Double(values.count)
        }
        for channel in 0..<3 { #expect(abs(mean(thumbnail, channel) - mean(full, channel)) < 6) }
        // An ordinary decode never substitutes it, even when asked for a small size.
        let reduced = try decoder.decode(data, options: DecodingOptions(minimumSize: PixelSize(width: 32, height: 32)))
        #expect(reduced.width == 160 && reduced.height == 107)
        #expect(try decoder.thumbnail(try HEIFFixtures.data("photo.heic")) == nil)
        #expect(throws: TroveError.imageTooLarge(width: 64, height: thumbnail.height, limit: 100)) {
            try decoder.thumbnail(data, limits: DecodingLimits(maxPixels: 100))
        }
    }

    @Test func recognisesHEICBrandsAndLeavesAVIFAlone() throws {
        func ftyp(_ major: String, _ compatible: [String]) -> Data {
            let size = 16 + 4 * compatible.count
            var bytes: [UInt8] = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
            for brand in compatible { bytes += Array(brand.utf8) }
            return Data(bytes + [0, 0, 0, 8] + Array("meta".utf8))
        }
        for file in ["photo.heic", "alpha.heic", "depth10.heic", "large.heic", "thumbnail.heic", "icc.heic"] {
            #expect(decoder.canDecode(try HEIFFixtures.data(file).prefix(ImageFormat.sniffLength)), "\(file)")
        }
        for major in ["heic", "heix", "heim", "heis", "hevc", "hevx"] {
            #expect(decoder.canDecode(ftyp(major, ["mif1"])), "\(major)")
        }
        #expect(decoder.canDecode(ftyp("mif1", ["heic", "miaf"])))
        #expect(decoder.canDecode(ftyp("msf1", ["hevc"])))
        #expect(decoder.canDecode(ftyp("mif1", [])))
        #expect(!decoder.canDecode(ftyp("avif", ["mif1", "miaf"])))
        #expect(!decoder.canDecode(ftyp("mif1", ["miaf", "avif"])))
        #expect(!decoder.canDecode(ftyp("msf1", ["iso8", "avis"])))
        #expect(!decoder.canDecode(ftyp("isom", ["mp41"])))
        #expect(!decoder.canDecode(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        #expect(!decoder.canDecode(Data()))
        // No header is claimed by both this and TroveAVIF's decoder, whatever its brands, at the registry's
        // sniff length and beyond.
        let brands = ["avif", "avis", "mif1", "msf1", "heic", "heix", "hevc", "miaf", "MA1B", "iso8"]
        let avif = AVIFDecoder()
        for major in brands {
            for first in brands {
                for second in brands {
                    let header = ftyp(major, ["miaf", first, "iso8", "mif1", second])
                    for length in [ImageFormat.sniffLength, header.count] {
                        let sniffed = header.prefix(length)
                        #expect(
                            !(decoder.canDecode(sniffed) && avif.canDecode(sniffed)), "\(major) \(first) \(second)")
                    }
                }
            }
        }
        let padded = Data([9, 9, 9]) + ftyp("heic", [])
        #expect(decoder.canDecode(padded[3...]))
    }
}
