import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// Streaming a PNG's rows into a sink gives exactly the pixels of `decode(_:options:)` at the same reduction,
/// through one reused row buffer, and stops when the sink throws.
@Suite struct PNGRowStreamingTests {
    let decoder = PNGDecoder()

    @Test(arguments: Fixtures.referenceIndex.map(\.name))
    func rowsEqualTheWholeDecodeAtEachReduction(name: String) throws {
        let data = try Fixtures.pngSuite(name)
        let full = try decoder.decode(data, limits: .default)
        let interlaced = data[28] == 1
        for minimum in [nil, PixelSize(width: (full.width + 1) / 2, height: 1), PixelSize(width: 1, height: 1)] {
            let options = DecodingOptions(minimumSize: minimum)
            let whole = try decoder.decode(data, options: options)
            let sink = CollectingRowSink()
            try decoder.decode(data, options: options, into: sink)
            // The header says what the whole decode says, colour description (PngSuite's gAMA) included.
            #expect(
                sink.header
                    == RowStreamHeader(
                        width: whole.width, height: whole.height, sourceFormat: .png,
                        colorDescription: whole.colorDescription))
            #expect(sink.rows == whole.height)
            #expect(sink.pixels == whole.pixels, "\(minimum.map(\.description) ?? "full size")")
            if !interlaced { #expect(sink.buffers.count == 1, "one row buffer, reused") }
        }
    }

    @Test func aLargeReducedDecodeUsesOneRowBuffer() throws {
        var pixels = [UInt8](repeating: 255, count: 1000 * 700 * 4)
        for i in 0..<1000 * 700 {
            pixels[4 * i] = UInt8(i % 1000 / 4)
            pixels[4 * i + 1] = UInt8(i / 1000 % 256)
            pixels[4 * i + 2] = 90
        }
        let image = Image(width: 1000, height: 700, pixels: pixels)
        let data = try PNGEncoder().encode(image, options: EncodingOptions())
        let sink = CollectingRowSink()
        try decoder.decode(data, options: DecodingOptions(minimumSize: PixelSize(width: 200, height: 100)), into: sink)
        // 1000x700 by 4 (250x175 is the smallest halving still at least 200 wide).
        #expect(sink.header?.width == 250 && sink.header?.height == 175)
        #expect(sink.rows == 175 && sink.buffers.count == 1)
    }

    @Test func aThrowingSinkStopsTheDecode() throws {
        let data = try Fixtures.pngSuite("basn6a08")
        let sink = CollectingRowSink()
        sink.stopAfter = 5
        #expect(throws: TroveError.cancelled) { try decoder.decode(data, options: DecodingOptions(), into: sink) }
        #expect(sink.rows == 5)
    }

    @Test func limitsAreCheckedBeforeTheSinkBegins() throws {
        let data = try Fixtures.pngSuite("basn6a08")  // 32x32
        let sink = CollectingRowSink()
        #expect(throws: TroveError.imageTooLarge(width: 32, height: 32, limit: 100)) {
            try decoder.decode(data, options: DecodingOptions(limits: DecodingLimits(maxPixels: 100)), into: sink)
        }
        #expect(sink.header == nil && sink.rows == 0)
    }

    @Test func aTruncatedFileIsAnError() throws {
        let data = try Fixtures.pngSuite("basn6a08")
        let sink = CollectingRowSink()
        #expect(throws: TroveError.self) {
            try decoder.decode(data.prefix(data.count - 40), options: DecodingOptions(), into: sink)
        }
    }
}
