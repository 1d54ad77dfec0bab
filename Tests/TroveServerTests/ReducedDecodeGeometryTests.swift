import FixtureServer
import Foundation
import Testing
import Trove
import TroveCodec
import TroveTestSupport
import TroveTransformers

@testable import TroveServer

/// A source whose size the decoder's block reduction does not divide (1601x1067: PNG's box by 4 makes 401x267
/// of it, JPEG's scaled IDCT by 8 201x134, the last column and row standing for part of a block) is resized
/// from where the picture really lies in the copy, not stretched over the whole copy. The picture is a wave
/// about nine output pixels long, so a shift shows: stretched by the copy's last pixel, the PNG read 30.2 dB
/// and the JPEG 21.1 dB from the full decode resized; in place, over 33 and 28, the rest being the box's and
/// the scaled IDCT's own filtering.
@Suite struct ReducedDecodeGeometryTests {
    static let signer = URLSigner.test

    static func wave(width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let across = (0..<width).map { sin(Double($0) * 2 * .pi / 71) }
        let down = (0..<height).map { cos(Double($0) * 2 * .pi / 53) }
        for y in 0..<height {
            for x in 0..<width {
                let u = across[x], v = down[y]
                let base = (y * width + x) * 4
                pixels[base] = UInt8(128 + 100 * u * v)
                pixels[base + 1] = UInt8(128 + 90 * u)
                pixels[base + 2] = UInt8(128 + 90 * v)
            }
        }
        return Image(width: width, height: height, pixelFormat: .rgba8, pixels: pixels)
    }

    @Test func aSizeTheBlockDoesNotDivideIsNotStretched() async throws {
        let registry = try ServerHarness.registry()
        try await withTemporaryDirectory { folder in
            let source = Self.wave(width: 1601, height: 1067)
            try registry.encoder(for: .png).encode(source, options: EncodingOptions())
                .write(to: folder.appendingPathComponent("wave.png"))
            try registry.encoder(for: .jpeg).encode(source, options: EncodingOptions(quality: 0.95))
                .write(to: folder.appendingPathComponent("wave.jpg"))
            let harness = try await ServerHarness.start(
                origin: try FixtureServer(serving: folder, under: "/images/"), registry: registry
            ) { configuration in
                configuration.keys = [Self.signer.key]
                configuration.salts = [Self.signer.salt]
            }
            defer { Task { await harness.stop() } }
            // The JPEG is read at an eighth (gap 1, as imgproxy reads it): the scaled IDCT's DC-only blocks
            // filter more than the PNG's box by 4 does.
            for (name, least) in [("wave.png", 33.0), ("wave.jpg", 28.0)] {
                let data = try Data(contentsOf: folder.appendingPathComponent(name))
                let full = try registry.decoder(for: name.hasSuffix("png") ? .png : .jpeg)
                    .decode(data, limits: .default)
                let expected = try ResizeTransformer(width: 200, height: 200, mode: .fit, filter: .lanczos3)
                    .transform(full)
                let url = harness.origin.url("/images/\(name)").absoluteString
                let answer = try await harness.request(Self.signer.signed("/rs:fit:200:200/plain/\(url)@png"))
                try #require(answer.status == .ok, "\(name): \(answer.text)")
                let served = try PNGDecoder().decode(answer.bytes, limits: .default)
                try #require(served.width == 200 && served.height == 133, "\(name)")
                let value = psnr(served, expected)
                #expect(value >= least, "\(name): PSNR \(value) dB against the full decode resized")
            }
        }
    }
}
