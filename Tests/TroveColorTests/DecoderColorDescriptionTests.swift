import Foundation
import Testing
import Trove
import TroveCodec
import TroveColor
import TroveCore
import TroveJPEG
import TroveTestSupport

/// Decoders report the colour information they find; the pipeline converts it on the reduced image, on the
/// streamed route as on the whole one.
@Suite(.serialized) struct DecoderColorDescriptionTests {
    @Test func everyFormatReportsItsEmbeddedProfile() async throws {
        try await withTemporaryDirectory { directory in
            let cases = try await ColorCases.make(in: directory)
            let registry = try ColorCases.registry(color: false)
            let adobe = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ColorCases.colord + "AdobeRGB1998.icc")))
            for ext in ["png", "jpg", "webp", "avif", "heic"] {
                let file = try #require(cases.first { $0.name == "adobergb.\(ext)" }).file
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                let decoder = try #require(registry.decoder(for: data))
                let image = try decoder.decode(data, limits: .default)
                #expect(image.colorDescription?.iccProfile == adobe, "\(ext)")
                // The row-streaming route reports it in the header.
                if let streaming = decoder as? any RowStreamingImageDecoder {
                    let sink = CollectingRowSink()
                    try streaming.decode(data, options: DecodingOptions(), into: sink)
                    #expect(sink.header?.colorDescription?.iccProfile == adobe, "\(ext) streamed")
                }
            }
            // A CMYK JPEG is converted while decoding: the image is RGB and carries no description.
            let cmyk = try Data(contentsOf: URL(fileURLWithPath: try #require(cases.last).file))
            #expect(try JPEGDecoder().decode(cmyk, limits: .default).colorDescription == nil)
        }
    }

    @Test func jpegProfileSplitOverMarkersIsJoinedBySequenceNumber() throws {
        let profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ColorCases.cmykProfilePath))).prefix(3000)
        let pixels = [UInt8](repeating: 200, count: 16 * 16 * 4)
        let jpeg = [UInt8](try JPEGEncoder().encode(Image(width: 16, height: 16, pixels: pixels), options: .init()))
        func marker(_ sequence: UInt8, of count: UInt8, _ part: ArraySlice<UInt8>) -> [UInt8] {
            let body = Array("ICC_PROFILE".utf8) + [0, sequence, count] + part
            let length = body.count + 2
            return [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        }
        let parts = [profile.prefix(1000), profile.dropFirst(1000).prefix(1000), profile.dropFirst(2000)]
        // Written out of order: 3, 1, 2.
        let markers = marker(3, of: 3, parts[2]) + marker(1, of: 3, parts[0]) + marker(2, of: 3, parts[1])
        let tagged = Data(Array(jpeg.prefix(2)) + markers + Array(jpeg.dropFirst(2)))
        let image = try JPEGDecoder().decode(tagged, limits: .default)
        #expect(image.colorDescription?.iccProfile == Array(profile))
        // A set with a part missing is no profile at all.
        let incomplete = Data(
            Array(jpeg.prefix(2)) + marker(1, of: 3, parts[0]) + marker(3, of: 3, parts[2]) + Array(jpeg.dropFirst(2)))
        #expect(try JPEGDecoder().decode(incomplete, limits: .default).colorDescription == nil)
    }

    @Test func pngGammaAndChromaticitiesAreReported() throws {
        let image = Image(width: 4, height: 4, pixels: [UInt8](repeating: 90, count: 64))
        var png = [UInt8](try PNGEncoder().encode(image, options: .init()))
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in typed {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            crc ^= 0xFFFF_FFFF
            let length = UInt32(body.count)
            return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + typed
                + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
        }
        func number(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let chrm = [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000].flatMap { number(UInt32($0)) }
        // After IHDR (8-byte signature + 25-byte chunk).
        png.insert(contentsOf: chunk("gAMA", number(100_000)) + chunk("cHRM", chrm), at: 33)
        let decoded = try PNGDecoder().decode(Data(png), limits: .default)
        #expect(decoded.colorDescription?.gamma == 1.0)
        #expect(decoded.colorDescription?.chromaticities?.redX == 0.64)
        #expect(decoded.colorDescription?.chromaticities?.whiteY == 0.329)
        // Through the pipeline's colour stage: linear light, so mid-gray 90 brightens to sRGB's encoding of it.
        var registry = PluginRegistry.standard
        try registry.install(TroveColorPlugin())
        let (converted, _) = try PNGDecoder().decode(
            Data(png), limits: .default, for: [], colorConverter: registry.colorConverter)
        let expected = (1.055 * pow(90.0 / 255, 1 / 2.4) - 0.055) * 255
        #expect(abs(Double(converted.pixels[0]) - expected) <= 1.5, "\(converted.pixels[0])")
        #expect(converted.colorDescription == nil)
    }

    @Test func pipelineConvertsOnTheStreamedReducedRows() async throws {
        try await withTemporaryDirectory { directory in
            let cases = try await ColorCases.make(in: directory)
            let source = try #require(cases.first { $0.name == "prophoto.jpg" })
            let resize = ResizeTransformer(width: 96, height: 64, mode: .fit)
            let reference = try resize.transform(try ColorCases.png(source.reference))
            var results: [Bool: Image] = [:]
            for color in [false, true] {
                let pipeline = try ImagePipeline(
                    registry: try ColorCases.registry(color: color), configuration: .memoryOnly)
                let request = ImageRequest(url: URL(fileURLWithPath: source.file), transforms: [resize])
                results[color] = try await pipeline.image(for: request).image
            }
            let converted = try #require(results[true]), ignored = try #require(results[false])
            #expect(converted.width == 96 && converted.colorDescription == nil)
            #expect(psnr(converted, reference) >= 36, "\(psnr(converted, reference)) dB")
            #expect(psnr(ignored, reference) < 25, "\(psnr(ignored, reference)) dB")
        }
    }
}
