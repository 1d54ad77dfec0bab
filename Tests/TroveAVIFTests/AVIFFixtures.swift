import Foundation
import TroveCodec
import TroveCore

/// The AVIF fixtures in Tests/Fixtures/avif (made by scripts/fixtures/make_avif_fixtures.py), their
/// manifest, Pillow's reference decodes, and the PSNR the tests compare with.
enum AVIFFixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures/avif")

    /// One fixture as the manifest describes it.
    struct Entry: Decodable, Sendable {
        var file: String
        var width: Int
        var height: Int
        var depth: Int
        var alpha: Bool
        var frames: Int
        /// Pillow's RGBA decode of each frame, as PNG.
        var references: [String]
        /// The pixels that were encoded (PNG), where the manifest names them.
        var source: String?
        var durationsMilliseconds: [Int]?
    }

    struct Manifest: Decodable, Sendable {
        var photo: Entry
        var alpha: Entry
        var depth10: Entry
        var depth12: Entry
        var sequence: Entry
        /// File name to the EXIF orientation Pillow reads from its 'irot'/'imir' boxes.
        var orientations: [String: Int]
    }

    static let manifest: Manifest = {
        do {
            let data = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
            return try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            fatalError("Tests/Fixtures/avif/manifest.json is unreadable: \(error)")
        }
    }()

    /// The still images, by manifest key.
    static let stills: [String: Entry] = [
        "photo": manifest.photo, "alpha": manifest.alpha, "depth10": manifest.depth10, "depth12": manifest.depth12
    ]

    static func data(_ file: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(file))
    }

    /// A PNG fixture decoded to packed RGBA8.
    static func png(_ file: String) throws -> Image {
        try PNGDecoder().decode(try data(file), limits: .default).convertedToRGBA8()
    }

    /// Peak signal-to-noise ratio in dB between two equally long 8-bit buffers (infinity when equal);
    /// `channels` picks which of every four bytes count (RGB: 0..<3, alpha: 3..<4).
    static func psnr(_ a: [UInt8], _ b: [UInt8], channels: Range<Int> = 0..<4) -> Double {
        precondition(a.count == b.count && a.count % 4 == 0, "buffers differ in length")
        var sum = 0.0, count = 0
        for pixel in stride(from: 0, to: a.count, by: 4) {
            for channel in channels {
                let d = Double(Int(a[pixel + channel]) - Int(b[pixel + channel]))
                sum += d * d
                count += 1
            }
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(count)))
    }
}
