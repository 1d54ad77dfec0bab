import Foundation
import TroveCodec
import TroveCore

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
        var bits = BitWriter()
        bits.write(0, count: 1)  // sizes not multiples of 8
        bits.writeSize(height)
        bits.write(0, count: 3)  // no aspect ratio: the width follows
        bits.writeSize(width)
        bits.write(1, count: 1)  // all_default image metadata
        return Data([0xFF, 0x0A] + bits.bytes + [UInt8](repeating: 0, count: 16))
    }

    /// Bits least significant first, as JPEG XL's headers are read.
    struct BitWriter {
        var bytes: [UInt8] = []
        var used = 0

        mutating func write(_ value: Int, count: Int) {
            for bit in 0..<count {
                if used % 8 == 0 { bytes.append(0) }
                if value >> bit & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << (used % 8)) }
                used += 1
            }
        }

        /// A size as the U32 of the size header: selector 3, then `size - 1` in 30 bits.
        mutating func writeSize(_ size: Int) {
            write(3, count: 2)
            write(size - 1, count: 30)
        }
    }
}
