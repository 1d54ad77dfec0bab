import Foundation
import Testing
import Trove
import TroveTestSupport

/// The must-show of issue 25: tagged photos converted by `trove convert` come out as Pillow + ImageCms
/// convert them, where ignoring the profile is far off.
@Suite(.serialized) struct ConvertCommandColorTests {
    static let trove = productsDirectory().appendingPathComponent("trove")

    @Test func taggedPhotosConvertLikeImageCms() async throws {
        try await withTemporaryDirectory { directory in
            let cases = try await ColorCases.make(in: directory)
            #expect(cases.count == 16)
            let plain = try ColorCases.registry(color: false)
            for testCase in cases {
                let output = directory.appendingPathComponent(testCase.name + ".trove.png")
                let result = try await runSubprocess(
                    Self.trove, ["convert", testCase.file, output.path],
                    environment: ["TROVE_CACHE_DIR": directory.path])
                try #require(result.status == 0, "trove convert \(testCase.name): \(result.stderr)")
                #expect(!result.stderr.contains("warning"), "\(testCase.name): \(result.stderr)")
                let reference = try ColorCases.png(testCase.reference)
                let converted = try ColorCases.png(output.path)
                // The same file decoded without a colour converter: the profile ignored.
                let data = try Data(contentsOf: URL(fileURLWithPath: testCase.file))
                let ignored = try #require(plain.decoder(for: data)).decode(data, limits: .default)
                let convertedPSNR = psnr(converted, reference), ignoredPSNR = psnr(ignored, reference)
                let minimum = testCase.name == "cmyk.jpg" ? 33.0 : 38.0
                #expect(convertedPSNR >= minimum, "\(testCase.name): \(convertedPSNR) dB")
                #expect(ignoredPSNR < 32, "\(testCase.name) with its profile ignored: \(ignoredPSNR) dB")
                print("\(testCase.name): converted \(convertedPSNR) dB, profile ignored \(ignoredPSNR) dB")
            }
        }
    }

    /// With `--keep-color-profile` the output keeps the source's pixels and profile; read through that
    /// profile it still matches Pillow + ImageCms's sRGB conversion. The CMYK file is converted all the same.
    @Test func keptProfilesReadThroughTheProfileMatchImageCms() async throws {
        try await withTemporaryDirectory { directory in
            let cases = try await ColorCases.make(in: directory)
            let plain = try ColorCases.registry(color: false)
            let managed = try ColorCases.registry(color: true)
            for testCase in cases {
                let output = directory.appendingPathComponent(testCase.name + ".kept.png")
                let result = try await runSubprocess(
                    Self.trove, ["convert", "--keep-color-profile", testCase.file, output.path],
                    environment: ["TROVE_CACHE_DIR": directory.path])
                try #require(result.status == 0, "trove convert \(testCase.name): \(result.stderr)")
                let source = try Data(contentsOf: URL(fileURLWithPath: testCase.file))
                let sourceImage = try #require(plain.decoder(for: source)).decode(source, limits: .default)
                let kept = try ColorCases.png(output.path)
                if testCase.name == "cmyk.jpg" {
                    #expect(kept.colorDescription?.iccProfile == nil, "a CMYK profile cannot describe RGB output")
                } else {
                    #expect(kept.colorDescription?.iccProfile == sourceImage.colorDescription?.iccProfile)
                    #expect(kept.convertedToRGBA8().pixels == sourceImage.convertedToRGBA8().pixels)
                }
                let data = try Data(contentsOf: output)
                let (throughProfile, _) = try #require(managed.decoder(for: data)).decode(
                    data, limits: .default, for: [], colorConverter: managed.colorConverter)
                let keptPSNR = psnr(throughProfile, try ColorCases.png(testCase.reference))
                let minimum = testCase.name == "cmyk.jpg" ? 33.0 : 38.0
                #expect(keptPSNR >= minimum, "\(testCase.name) kept, read through its profile: \(keptPSNR) dB")
            }
        }
    }

    @Test func damagedProfileIsTreatedAsSRGBWithAWarning() async throws {
        try await withTemporaryDirectory { directory in
            let cases = try await ColorCases.make(in: directory)
            let source = try #require(cases.first { $0.name == "prophoto.jpg" })
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source.file)))
            // Overwrite the profile's tag table (it follows the 128-byte header in the first APP2 marker).
            let marker = try #require(bytes.firstRange(of: Array("ICC_PROFILE".utf8)))
            let tagTable = marker.lowerBound + 14 + 128
            for index in tagTable..<(tagTable + 64) { bytes[index] = 0xEE }
            let damaged = directory.appendingPathComponent("damaged.jpg")
            try Data(bytes).write(to: damaged)
            let output = directory.appendingPathComponent("damaged.png")
            let result = try await runSubprocess(
                Self.trove, ["convert", damaged.path, output.path], environment: ["TROVE_CACHE_DIR": directory.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("warning"), "\(result.stderr)")
            #expect(result.stderr.contains("ICC profile"), "\(result.stderr)")
            // The pixels are the decoded ones, as sRGB: what a decode without any converter gives.
            let data = try Data(contentsOf: damaged)
            let plain = try ColorCases.registry(color: false)
            let decoded = try #require(plain.decoder(for: data)).decode(data, limits: .default)
            #expect(try ColorCases.png(output.path).pixels == decoded.pixels)
        }
    }
}
