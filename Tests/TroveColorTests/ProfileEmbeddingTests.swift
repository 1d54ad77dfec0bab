import Foundation
import Testing
import Trove
import TroveAVIF
import TroveCodec
import TroveCore
import TroveHEIF
import TroveJPEG
import TroveJXL
import TroveTestSupport
import TroveWebP

/// An image whose colour stage kept its source's ICC profile gets it back from every encoder, in the place
/// each format keeps it (PNG iCCP, JPEG APP2, WebP ICCP, AVIF and HEIC colr), readable by Trove's decoders
/// and by Pillow; an image without one, or whose pixels the profile does not fit, gets none. JPEG XL keeps
/// the colour space rather than the bytes: libjxl stores a profile it recognises as an enumerated encoding.
@Suite struct ProfileEmbeddingTests {
    static let encoders: [any ImageEncoder] = [
        PNGEncoder(), JPEGEncoder(), WebPEncoder(), AVIFEncoder(), HEIFEncoder(), JXLEncoder()
    ]
    /// The encoders that keep a profile's bytes.
    static let byteExact = encoders.filter { $0.format != .jxl }
    static let decoders: [ImageFormat: any ImageDecoder] = [
        .png: PNGDecoder(), .jpeg: JPEGDecoder(), .webp: WebPDecoder(), .avif: AVIFDecoder(),
        .heic: HEIFDecoder(), .jxl: JXLDecoder()
    ]

    /// A 24x16 opaque gradient tagged with `profile`.
    static func tagged(_ profile: [UInt8]?, format: PixelFormat = .rgba8) -> Image {
        let width = 24, height = 16, bpp = format.bytesPerPixel
        var pixels = [UInt8](repeating: 255, count: width * height * bpp)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * bpp
                pixels[i] = UInt8(x * 10)
                if bpp == 4 {
                    pixels[i + 1] = UInt8(y * 15)
                    pixels[i + 2] = 128
                }
            }
        }
        return Image(
            width: width, height: height, pixelFormat: format, pixels: pixels,
            colorDescription: profile.map { ColorDescription(iccProfile: $0) })
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// What Pillow reads from each file: the profile in hex, or nil.
    static func pillowProfiles(_ files: [URL]) async throws -> [String: String?] {
        try JSONDecoder().decode(
            [String: String?].self, from: try await ColorCases.pillow("icc_of.py", files.map(\.path)))
    }

    @Test func everyEncoderEmbedsAKeptProfile() async throws {
        let profile = try ColorCases.displayP3Profile()
        let image = Self.tagged(profile)
        try await withTemporaryDirectory { directory in
            var files: [URL] = []
            for encoder in Self.byteExact {
                let data = try encoder.encode(image, options: EncodingOptions())
                let decoder = try #require(Self.decoders[encoder.format])
                let decoded = try decoder.decode(data, limits: .default)
                #expect(
                    decoded.colorDescription?.iccProfile == profile,
                    "\(encoder.format): Trove reads back \(decoded.colorDescription?.iccProfile?.count ?? 0) bytes")
                let file = directory.appendingPathComponent("tagged.\(encoder.format.rawValue)")
                try data.write(to: file)
                files.append(file)
            }
            let read = try await Self.pillowProfiles(files)
            for file in files {
                let found = read[file.path] ?? nil
                #expect(
                    found == Self.hex(profile),
                    "Pillow reads \(found?.count ?? 0) hex digits from \(file.lastPathComponent)")
            }
        }
    }

    /// libjxl recognises Display P3 and stores it as an enumerated colour encoding, which reads back as CICP
    /// P3-D65 primaries with the sRGB transfer, and which Pillow (through libjxl) turns into a profile again.
    @Test func jpegXLKeepsTheProfilesColourSpace() async throws {
        let data = try JXLEncoder().encode(Self.tagged(try ColorCases.displayP3Profile()), options: EncodingOptions())
        let cicp = try JXLDecoder().decode(data, limits: .default).colorDescription?.cicp
        #expect(cicp?.primaries == 12 && cicp?.transfer == 13, "\(String(describing: cicp))")
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("tagged.jxl")
            try data.write(to: file)
            let found = try await Self.pillowProfiles([file])[file.path] ?? nil
            #expect(found != nil, "Pillow finds no profile in the JPEG XL file")
        }
        let untagged = try JXLEncoder().encode(Self.tagged(nil), options: EncodingOptions())
        let srgb = try JXLDecoder().decode(untagged, limits: .default).colorDescription?.cicp
        #expect(srgb?.primaries == 1, "\(String(describing: srgb))")
    }

    @Test func untaggedImagesStayUntagged() throws {
        for encoder in Self.encoders {
            let data = try encoder.encode(Self.tagged(nil), options: EncodingOptions())
            let decoded = try #require(Self.decoders[encoder.format]).decode(data, limits: .default)
            #expect(decoded.colorDescription?.iccProfile == nil, "\(encoder.format)")
        }
    }

    @Test func grayPixelsDoNotTakeAnRGBProfile() throws {
        let profile = try ColorCases.displayP3Profile()
        for encoder in [PNGEncoder(), JPEGEncoder()] as [any ImageEncoder] {
            let data = try encoder.encode(Self.tagged(profile, format: .gray8), options: EncodingOptions())
            let decoded = try #require(Self.decoders[encoder.format]).decode(data, limits: .default)
            #expect(decoded.colorDescription?.iccProfile == nil, "\(encoder.format)")
        }
        #expect(ColorDescription(iccProfile: profile).embeddableProfile(for: .gray8) == nil)
        #expect(ColorDescription(iccProfile: profile).embeddableProfile(for: .rgba8) == profile)
        #expect(ColorDescription(iccProfile: Array(profile.prefix(100))).embeddableProfile(for: .rgba8) == nil)
        let cmyk = ColorDescription(iccProfile: profile, cmyk: .init(isInverted: true))
        #expect(cmyk.embeddableProfile(for: .rgba8) == nil)
    }

    /// A profile over one APP2 marker's 65,519 bytes spans several, which the decoder joins again.
    @Test func aLargeProfileSpansSeveralJPEGMarkers() async throws {
        let profile = try ColorCases.displayP3Profile() + (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let data = try JPEGEncoder().encode(Self.tagged(profile), options: EncodingOptions())
        let markers = data.ranges(of: Data("ICC_PROFILE".utf8)).count
        #expect(markers == 3)
        let decoded = try JPEGDecoder().decode(data, limits: .default)
        #expect(decoded.colorDescription?.iccProfile == profile)
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("large.jpg")
            try data.write(to: file)
            let found = try await Self.pillowProfiles([file])[file.path] ?? nil
            #expect(found == Self.hex(profile))
        }
    }
}
