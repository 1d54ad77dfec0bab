import Foundation
import Testing
import TroveCore
import TroveJPEG
import TroveTestSupport

/// Baseline, progressive, gray and CMYK JPEGs decode to RGBA8 like Pillow (which also uses libjpeg-turbo);
/// EXIF orientation is read; broken input is refused with a message.
@Suite struct JPEGDecoderTests {
    let decoder = JPEGDecoder()

    @Test(arguments: JPEGFixtures.index.map(\.name))
    func decodesLikeTheReference(name: String) throws {
        let entry = try #require(JPEGFixtures.index.first { $0.name == name })
        let image = try decoder.decode(try JPEGFixtures.jpeg(name), limits: .default)
        #expect(image.width == entry.width && image.height == entry.height)
        #expect(image.pixelFormat == .rgba8 && image.bytesPerRow == image.width * 4 && image.sourceFormat == .jpeg)
        let reference = try JPEGFixtures.reference(name)
        // Same IDCT and upsampling as Pillow's libjpeg-turbo; CMYK to RGB rounds once, Pillow twice.
        let tolerance = entry.mode == "CMYK" ? 1 : 0
        #expect(JPEGFixtures.maxDifference(image.pixels, reference) <= tolerance)
        #expect(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
    }

    /// A CMYK file's inks are read as Adobe's inverted ones with or without its APP14 marker, as Pillow,
    /// libvips and browsers read them (libjpeg writes the marker for every CMYK file, whatever its inks):
    /// without the marker the picture is the same, not nearly black, whole or reduced.
    @Test func cmykWithoutItsAdobeMarkerIsReadAsInverted() throws {
        let withMarker = [UInt8](try JPEGFixtures.jpeg("cmyk"))
        let withoutMarker = Self.removingSegments(0xEE, from: withMarker)
        #expect(withoutMarker.count < withMarker.count, "the fixture has an APP14 marker")
        let expected = try decoder.decode(Data(withMarker), limits: .default).pixels
        #expect(try decoder.decode(Data(withoutMarker), limits: .default).pixels == expected)
        let reduced = DecodingOptions(minimumSize: PixelSize(width: 40, height: 27))
        let expectedReduced = try decoder.decode(Data(withMarker), options: reduced)
        #expect(expectedReduced.width < 160)
        #expect(try decoder.decode(Data(withoutMarker), options: reduced).pixels == expectedReduced.pixels)
    }

    /// The file with every marker segment of type `marker` (before the scan) left out.
    static func removingSegments(_ marker: UInt8, from jpeg: [UInt8]) -> [UInt8] {
        var out = Array(jpeg.prefix(2))
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF, jpeg[offset + 1] != 0xDA {
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            if jpeg[offset + 1] != marker { out += jpeg[offset..<(offset + 2 + length)] }
            offset += 2 + length
        }
        return out + jpeg[offset...]
    }

    @Test func grayBecomesEqualChannels() throws {
        let image = try decoder.decode(try JPEGFixtures.jpeg("gray"), limits: .default)
        let pixels = image.pixels
        let unequal = stride(from: 0, to: pixels.count, by: 4).filter { (i: Int) -> Bool in
            pixels[i] != pixels[i + 1] || pixels[i + 1] != pixels[i + 2]
        }
        #expect(pixels.count == 160 * 107 * 4)
        #expect(unequal.isEmpty)
    }

    @Test func readsExifOrientation() throws {
        #expect(try decoder.decode(try JPEGFixtures.jpeg("orientation6"), limits: .default).orientation == .right)
        #expect(try decoder.decode(try JPEGFixtures.jpeg("baseline"), limits: .default).orientation == .up)
    }

    @Test func decodesTheRocketPhoto() throws {
        let image = try decoder.decode(try JPEGFixtures.rocket(), limits: .default)
        #expect(image.width == 640 && image.height == 427)
        #expect(image.pixels.count == 640 * 427 * 4)
    }

    @Test func progressiveAndBaselineAgreeClosely() throws {
        let baseline = try decoder.decode(try JPEGFixtures.jpeg("baseline"), limits: .default)
        let progressive = try decoder.decode(try JPEGFixtures.jpeg("progressive"), limits: .default)
        // Same quantisation, different scan order: the pixels are the same.
        #expect(baseline.pixels == progressive.pixels)
    }

    @Test func sizeOverTheLimitIsRefusedFromTheHeader() throws {
        let data = try JPEGFixtures.jpeg("baseline")  // 160 x 107
        #expect(throws: TroveError.imageTooLarge(width: 160, height: 107, limit: 10_000)) {
            try decoder.decode(data, limits: DecodingLimits(maxPixels: 10_000))
        }
    }

    @Test func everyTruncationIsAnError() throws {
        let data = [UInt8](try JPEGFixtures.jpeg("progressive"))
        for length in stride(from: 0, to: data.count - 1, by: 7) {
            #expect(throws: TroveError.self, "prefix of \(length) bytes decoded") {
                try decoder.decode(Data(data[0..<length]), limits: .default)
            }
        }
        let cut = Data(data[0..<data.count / 2])
        #expect(
            throws: TroveError.decodingFailed(
                format: .jpeg,
                reason: "the file ends before the image data does (it is truncated)")
        ) {
            try decoder.decode(cut, limits: .default)
        }
    }

    /// A sequential file that lacks only its end marker decodes whole, as libjpeg, browsers and libvips show
    /// it, whole, reduced, row by row and as planes; cut shorter it fails or, when all that was cut is the
    /// last byte's padding bits, gives exactly the whole file's pixels: never a partial image. A progressive
    /// file without its end marker may lack scans as well, and still fails.
    @Test func aMissingEndMarkerAloneIsNotTruncation() throws {
        let data = [UInt8](try JPEGFixtures.jpeg("baseline"))
        #expect(Array(data.suffix(2)) == [0xFF, 0xD9])
        let whole = try decoder.decode(Data(data), limits: .default)
        for cut in [1, 2] {
            let headless = Data(data.dropLast(cut))
            #expect(try decoder.decode(headless, limits: .default) == whole, "\(cut) bytes cut")
            let reduced = DecodingOptions(minimumSize: PixelSize(width: whole.width / 4, height: whole.height / 4))
            #expect(
                try decoder.decode(headless, options: reduced) == (try decoder.decode(Data(data), options: reduced)))
            let rows = CollectingRowSink()
            try decoder.decode(headless, options: DecodingOptions(), into: rows)
            #expect(rows.pixels == whole.pixels, "\(cut) bytes cut, row by row")
        }
        for length in stride(from: 0, to: data.count - 2, by: 5) {
            if let image = try? decoder.decode(Data(data[0..<length]), limits: .default) {
                #expect(image == whole, "a prefix of \(length) bytes decoded to other pixels")
            }
        }
        #expect(throws: TroveError.self) { try decoder.decode(Data(data[0..<(data.count - 40)]), limits: .default) }
        let progressive = try JPEGFixtures.jpeg("progressive")
        #expect(throws: TroveError.self) { try decoder.decode(progressive.dropLast(2), limits: .default) }
    }

    @Test func garbageAfterTheMarkerNamesLibjpegsReason() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x03, 0x01]
        #expect {
            try decoder.decode(Data(bytes), limits: .default)
        } throws: { error in
            guard case let TroveError.decodingFailed(format, reason) = error else { return false }
            return format == .jpeg && !reason.isEmpty
        }
    }

    @Test func damagedBytesNeverCrash() throws {
        let original = [UInt8](try JPEGFixtures.jpeg("progressive"))
        var damager = ByteDamager(seed: 0x1234_5678_9ABC_DEF1)
        for _ in 0..<200 {
            let bytes = damager.damaged(original)
            do {
                let image = try decoder.decode(Data(bytes), limits: DecodingLimits(maxPixels: 1 << 20))
                #expect(image.pixels.count == image.width * image.height * 4)
            } catch is TroveError {
            }
        }
    }
}
