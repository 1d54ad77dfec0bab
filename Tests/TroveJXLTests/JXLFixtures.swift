import Foundation
import TroveCodec
import TroveCore
import TroveTestSupport

/// The JPEG XL fixtures in Tests/Fixtures/jxl (made by scripts/fixtures/make_jxl_fixtures.py), libjxl's
/// reference decodes of them (through pillow-jxl-plugin) and the helpers the tests compare with.
enum JXLFixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures/jxl")

    /// What the fixture script recorded for one file.
    struct Entry: Decodable {
        var width: Int
        var height: Int
        var frames: Int
        var lossless: Bool
        var delays_ms: [Int]?
        var loop: Int?
    }

    static func jxl(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent("\(name).jxl"))
    }

    /// The RGBA reference of a still, or of frame `frame` of the animation.
    static func reference(_ name: String, frame: Int? = nil) throws -> Image {
        let file = frame.map { "\(name)-\($0).png" } ?? "\(name).png"
        let data = try Data(contentsOf: directory.appendingPathComponent(file))
        return try PNGDecoder().decode(data, limits: .default).convertedToRGBA8()
    }

    static func manifest(_ name: String) throws -> Entry {
        let data = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let entry = object?[name] else { throw CocoaError(.fileReadCorruptFile) }
        return try JSONDecoder().decode(Entry.self, from: JSONSerialization.data(withJSONObject: entry))
    }

    /// PSNR in dB of two equally long RGBA8 buffers over `channels` of every four bytes (infinity if equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8], channels: Range<Int> = 0..<3) -> Double {
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

    /// A bare codestream whose size header declares `width` x `height` (each 1...2^30), then default
    /// metadata and a few zero bytes: enough for libjxl to report the size, with no image after it.
    static func codestreamHeader(width: Int, height: Int) -> Data {
        Bombs.jxlHeader(width: width, height: height)
    }
}
