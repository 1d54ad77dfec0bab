import Foundation
import Synchronization
import Testing
import Trove
import TroveCore

/// `orient` then a shrinking resize, decoded for those transforms by a row-streaming decoder: an upright
/// image's rows go straight into the resize, and so do a turned one's, into a resize planned on the displayed
/// size whose small result is turned upright; either way no whole image is held and the pixels are those of
/// decoding whole and running the transforms (within a level: the turned resize runs its passes in the other
/// order). A decoder whose rows say another orientation than its header gets every step on the whole image.
@Suite struct OrientedRowStreamingTests {
    /// Delivers a fixed image, stored in `orientation`, at full size: whole or row by row, counting each.
    final class FixedDecoder: RowStreamingImageDecoder {
        let image: Image
        /// What `info` says the orientation is: the image's own, unless a test makes them disagree.
        let headerOrientation: ExifOrientation
        let wholeDecodes = Mutex(0)
        let streams = Mutex(0)
        var name: String { "fixed" }
        var format: ImageFormat { .png }

        init(_ image: Image, headerOrientation: ExifOrientation? = nil) {
            self.image = image
            self.headerOrientation = headerOrientation ?? image.orientation
        }

        func canDecode(_ header: Data) -> Bool { true }
        func info(_ data: Data) throws -> ImageInfo? {
            ImageInfo(format: .png, width: image.width, height: image.height, orientation: headerOrientation)
        }
        func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
            wholeDecodes.withLock { $0 += 1 }
            return image
        }
        func decode(_ data: Data, options: DecodingOptions) throws -> Image { try decode(data, limits: options.limits) }
        func decode(_ data: Data, options: DecodingOptions, into sink: any ImageRowSink) throws {
            streams.withLock { $0 += 1 }
            try sink.begin(
                RowStreamHeader(
                    width: image.width, height: image.height, sourceFormat: .png, orientation: image.orientation))
            try image.pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<image.height { try sink.consume(pixels.baseAddress! + y * image.width * 4) }
            }
        }
    }

    static func image(_ orientation: ExifOrientation) -> Image {
        let width = 90, height = 60
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 2)
                pixels[i + 1] = UInt8(y * 4)
                pixels[i + 2] = (x / 5 + y / 3) % 2 == 0 ? 30 : 200
                pixels[i + 3] = 255
            }
        }
        return Image(width: width, height: height, pixels: pixels, sourceFormat: .png, orientation: orientation)
    }

    static let transforms: [any ImageTransformer] = [
        OrientTransformer(), ResizeTransformer(width: 40, height: 40, mode: .fit, filter: .lanczos3),
        GrayscaleTransformer()
    ]

    /// The whole-image route: every transform on the decoded image.
    static func expected(_ image: Image) throws -> Image {
        try transforms.reduce(image) { try $1.transform($0) }
    }

    @Test func anUprightImageStreamsIntoTheResize() throws {
        let decoder = FixedDecoder(Self.image(.up))
        let (image, rest) = try decoder.decode(Data(), limits: .default, for: Self.transforms)
        #expect(rest.map(\.identifier) == ["grayscale"], "orient and the resize are done")
        #expect(decoder.streams.withLock { $0 } == 1 && decoder.wholeDecodes.withLock { $0 } == 0)
        let result = try rest.reduce(image) { try $1.transform($0) }
        let expected = try Self.expected(Self.image(.up))
        #expect(result.width == 40 && result.height == 27)
        #expect(result.pixels == expected.pixels)
    }

    /// The largest difference between two images' samples.
    static func largestDifference(_ a: Image, _ b: Image) -> Int {
        zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test(arguments: [ExifOrientation.upMirrored, .right, .down, .leftMirrored, .rightMirrored, .left])
    func aTurnedImageStreamsIntoAResizePlannedOnTheDisplayedSize(_ orientation: ExifOrientation) throws {
        let decoder = FixedDecoder(Self.image(orientation))
        let (image, rest) = try decoder.decode(Data(), limits: .default, for: Self.transforms)
        #expect(rest.map(\.identifier) == ["grayscale"], "orient and the resize are done")
        #expect(decoder.streams.withLock { $0 } == 1 && decoder.wholeDecodes.withLock { $0 } == 0)
        #expect(image.orientation == .up)
        let result = try rest.reduce(image) { try $1.transform($0) }
        let expected = try Self.expected(Self.image(orientation))
        #expect(result.width == expected.width && result.height == expected.height)
        #expect(Self.largestDifference(result, expected) <= 1)
    }

    @Test(arguments: [ExifOrientation.right, .down, .leftMirrored])
    func rowsThatDisagreeWithTheHeaderAreTurnedWholeFirst(_ orientation: ExifOrientation) throws {
        // The header says `.left`; the rows say `orientation`: the plan does not fit them.
        let decoder = FixedDecoder(Self.image(orientation), headerOrientation: .left)
        let (image, rest) = try decoder.decode(Data(), limits: .default, for: Self.transforms)
        #expect(rest.map(\.identifier) == Self.transforms.map(\.identifier), "every step still to run")
        #expect(image.orientation == orientation && image.width == 90 && image.height == 60)
        let result = try rest.reduce(image) { try $1.transform($0) }
        let expected = try Self.expected(Self.image(orientation))
        #expect(result.width == expected.width && result.height == expected.height)
        #expect(result.pixels == expected.pixels)
    }
}
