import Foundation
import TroveCodec
import TroveCore

/// WebP test files under Tests/Fixtures/webp (made by scripts/fixtures/make_webp_fixtures.py), found from
/// this source file's location, and the measures the tests compare with.
enum WebPFixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let root = repositoryRoot.appendingPathComponent("Tests/Fixtures/webp")

    /// The still fixtures; each has `<name>.png`, Pillow's RGBA decode.
    static let stills = ["lossless-alpha", "lossy-photo", "lossy-alpha"]
    /// The animated fixtures; each has `<name>-<n>.png` per frame.
    static let animations = ["animated", "animated-lossy"]

    static func webp(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("\(name).webp"))
    }

    /// Pillow's RGBA decode of a still, or of frame `frame` of an animation.
    static func reference(_ name: String, frame: Int? = nil) throws -> Image {
        let file = frame.map { "\(name)-\($0).png" } ?? "\(name).png"
        return try PNGDecoder().decode(Data(contentsOf: root.appendingPathComponent(file)), limits: .default)
    }

    /// What Pillow reported for a fixture (manifest.json).
    struct Entry: Decodable {
        var width: Int
        var height: Int
        var frames: Int
        var lossless: Bool
        var delays_ms: [Int]?
        var loop: Int?
    }

    static func manifest(_ name: String) throws -> Entry {
        let data = try Data(contentsOf: root.appendingPathComponent("manifest.json"))
        // The manifest also holds "_made_with", which is not an entry.
        let all = try JSONDecoder().decode([String: DecodableOrSkipped].self, from: data)
        guard let entry = all[name]?.entry else { throw CocoaError(.fileReadCorruptFile) }
        return entry
    }

    /// Decodes an `Entry` where the value is one, nil elsewhere.
    struct DecodableOrSkipped: Decodable {
        var entry: Entry?
        init(from decoder: any Decoder) throws { entry = try? Entry(from: decoder) }
    }

    /// The largest difference between two equally long byte arrays (Int.max when their lengths differ).
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return Int.max }
        return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// PSNR in dB over the R, G and B channels of two RGBA8 buffers of the same size (infinity if equal).
    static func psnrRGB(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && a.count % 4 == 0)
        var squared = 0
        for i in stride(from: 0, to: a.count, by: 4) {
            for c in 0..<3 {
                let d = Int(a[i + c]) - Int(b[i + c])
                squared += d * d
            }
        }
        guard squared > 0 else { return .infinity }
        let mse = Double(squared) / Double(a.count / 4 * 3)
        return 10 * log10(255 * 255 / mse)
    }

    /// RGBA8 with colour multiplied by alpha (rounded): what shows over black, whatever hides under alpha 0.
    static func premultiplied(_ pixels: [UInt8]) -> [UInt8] {
        var out = pixels
        for i in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Int(pixels[i + 3])
            for c in 0..<3 { out[i + c] = UInt8((Int(pixels[i + c]) * alpha + 127) / 255) }
        }
        return out
    }

    /// A crafted extended (VP8X) header declaring a canvas of `width` x `height`, with the animation flag
    /// when `animated`; nothing follows it.
    static func vp8xHeader(width: Int, height: Int, animated: Bool = false) -> Data {
        func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
        var bytes = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBP".utf8)
        bytes += Array("VP8X".utf8) + [10, 0, 0, 0]
        bytes += [animated ? 0x02 : 0, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        return Data(bytes)
    }
}
