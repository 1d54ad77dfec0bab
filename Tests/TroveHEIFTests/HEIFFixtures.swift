import Foundation
import TroveCodec
import TroveCore
import TroveTestSupport

/// The HEIC fixtures in Tests/Fixtures/heic (made by scripts/fixtures/make_heic_fixtures.py), their manifest,
/// and pillow-heif's reference decodes.
enum HEIFFixtures {
    struct Still: Decodable {
        var file: String
        var reference: String
        var size: [Int]
    }

    struct Oriented: Decodable {
        var exif: Int
        var reference: String
        var size: [Int]
    }

    struct Described: Decodable {
        var file: String
        var nclx: [Int]?
        var profile: String?

        private enum CodingKeys: String, CodingKey { case file, nclx, profile }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            file = try container.decode(String.self, forKey: .file)
            profile = try container.decodeIfPresent(String.self, forKey: .profile)
            // [primaries, transfer, matrix, full range]: three numbers and a flag, as 0/1.
            if var list = try? container.nestedUnkeyedContainer(forKey: .nclx) {
                nclx = [
                    try list.decode(Int.self), try list.decode(Int.self), try list.decode(Int.self),
                    try list.decode(Bool.self) ? 1 : 0
                ]
            }
        }
    }

    struct Manifest: Decodable {
        var photo: Still
        var alpha: Still
        var depth10: Still
        var orientations: [String: Oriented]
        var icc: Described
        var nclx: Described
        /// photo.heic's nclx, as its entry lists it beside the size.
        var photoNCLX: [Int]? { photoColour.photo.nclx }
        private var photoColour: PhotoColour

        private struct PhotoColour: Decodable { var photo: Described }

        private enum CodingKeys: String, CodingKey { case photo, alpha, depth10, orientations, icc, nclx }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            photo = try container.decode(Still.self, forKey: .photo)
            alpha = try container.decode(Still.self, forKey: .alpha)
            depth10 = try container.decode(Still.self, forKey: .depth10)
            orientations = try container.decode([String: Oriented].self, forKey: .orientations)
            icc = try container.decode(Described.self, forKey: .icc)
            nclx = try container.decode(Described.self, forKey: .nclx)
            photoColour = try PhotoColour(from: decoder)
        }
    }

    static let manifest: Manifest = {
        do {
            return try JSONDecoder().decode(Manifest.self, from: try data("manifest.json"))
        } catch {
            fatalError("Tests/Fixtures/heic/manifest.json is unreadable: \(error)")
        }
    }()

    static func data(_ file: String) throws -> Data {
        try Data(contentsOf: Fixtures.url("heic/\(file)"))
    }

    /// A PNG fixture decoded to packed RGBA8.
    static func png(_ file: String) throws -> Image {
        try PNGDecoder().decode(try data(file), limits: .default).convertedToRGBA8()
    }

    /// `bytes` with every 'ispe' box (an item's declared size) that says `old` (any, when nil) saying
    /// `width` x `height` instead.
    static func declaring(width: UInt32, height: UInt32, in bytes: [UInt8], replacing old: PixelSize? = nil) -> [UInt8]
    {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        var copy = bytes
        let tag = Array("ispe".utf8)
        var at = 0
        while at + 16 <= copy.count {
            if copy[at..<at + 4].elementsEqual(tag),
                old.map({ copy[at + 8..<at + 16].elementsEqual(bigEndian($0.width) + bigEndian($0.height)) }) ?? true
            {
                // 'ispe' is a full box: type, version and flags (4), width (4), height (4).
                for (offset, value) in [(8, width), (12, height)] {
                    for byte in 0..<4 { copy[at + offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
                }
            }
            at += 1
        }
        return copy
    }
}
