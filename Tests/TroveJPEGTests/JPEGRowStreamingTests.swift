import Foundation
import Testing
import TroveCore
import TroveJPEG
import TroveTestSupport

/// Streaming a JPEG's scanlines into a sink gives exactly the pixels of `decode(_:options:)` at the same
/// scale, through one row buffer, keeps the EXIF orientation, and stops when the sink throws.
@Suite struct JPEGRowStreamingTests {
    let decoder = JPEGDecoder()

    @Test(arguments: ["baseline", "progressive", "gray", "cmyk", "orientation6"])
    func rowsEqualTheWholeDecodeAtEachScale(name: String) throws {
        let data = try JPEGFixtures.jpeg(name)
        let full = try decoder.decode(data, limits: .default)
        for factor in [1, 2, 4, 8] {
            let minimum = PixelSize(
                width: (full.width + factor - 1) / factor, height: (full.height + factor - 1) / factor)
            let options = DecodingOptions(minimumSize: factor == 1 ? nil : minimum)
            let whole = try decoder.decode(data, options: options)
            let sink = CollectingRowSink()
            try decoder.decode(data, options: options, into: sink)
            #expect(
                sink.header
                    == RowStreamHeader(
                        width: whole.width, height: whole.height, sourceFormat: .jpeg, orientation: whole.orientation))
            #expect(sink.rows == whole.height && sink.buffers.count == 1, "1/\(factor)")
            #expect(sink.pixels == whole.pixels, "1/\(factor)")
        }
    }

    @Test func keepsTheOrientation() throws {
        let sink = CollectingRowSink()
        try decoder.decode(try JPEGFixtures.jpeg("orientation6"), options: DecodingOptions(), into: sink)
        #expect(sink.header?.orientation == .right)
    }

    @Test func aThrowingSinkStopsTheDecode() throws {
        let sink = CollectingRowSink()
        sink.stopAfter = 3
        #expect(throws: TroveError.cancelled) {
            try decoder.decode(try JPEGFixtures.rocket(), options: DecodingOptions(), into: sink)
        }
        #expect(sink.rows == 3)
    }

    @Test func limitsAreCheckedBeforeTheSinkBegins() throws {
        let sink = CollectingRowSink()
        #expect(throws: TroveError.imageTooLarge(width: 640, height: 427, limit: 10_000)) {
            try decoder.decode(
                try JPEGFixtures.rocket(), options: DecodingOptions(limits: DecodingLimits(maxPixels: 10_000)),
                into: sink)
        }
        #expect(sink.header == nil)
    }

    @Test func aTruncatedFileIsAnError() throws {
        let data = try JPEGFixtures.jpeg("baseline")
        let sink = CollectingRowSink()
        #expect(
            throws: TroveError.decodingFailed(
                format: .jpeg, reason: "the file ends before the image data does (it is truncated)")
        ) {
            try decoder.decode(data.prefix(data.count / 2), options: DecodingOptions(), into: sink)
        }
    }
}
