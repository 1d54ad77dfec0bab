import Foundation
import Testing
import Trove
import TroveAVIF
import TroveCodec
import TroveColor
import TroveHEIF
import TroveJPEG
import TroveJXL
import TroveTestSupport
import TroveWebP

/// Tests/Fixtures/orientation, written by scripts/fixtures/make_orientation_fixtures.py from public tools
/// (Pillow, avifenc, heif-enc) with each file's reference display: Pillow's `exif_transpose`, avifdec's decode
/// with MIAF's clap, irot and imir applied, heif-convert's output.
enum DisplayFixtures {
    /// What the manifest says of one file.
    struct Entry: Decodable {
        let name: String
        let format: String
        let group: String
        let displayedWidth: Int
        let displayedHeight: Int
        let exifOrientation: Int?
        let irot: Int?
        let imir: Int?
        let reference: String?
        let bitDepth: Int?
        let subsampling: String?
        let frames: Int?
    }

    struct Manifest: Decodable {
        let files: [String: Entry]
    }

    static let directory = Fixtures.url("orientation")

    static let manifest: Manifest = {
        do {
            let data = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
            return try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            fatalError("Tests/Fixtures/orientation/manifest.json: \(error)")
        }
    }()

    /// The entries of `group`, by name.
    static func entries(_ group: String) -> [Entry] {
        manifest.files.values.filter { $0.group == group }.sorted { $0.name < $1.name }
    }

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    /// A reference PNG, as RGBA8.
    static func reference(_ name: String) throws -> Image {
        try PNGDecoder().decode(try data(name), limits: .default).convertedToRGBA8()
    }

    /// Every codec Trove ships, and colour management: what the CLI and the server run.
    static func registry() throws -> PluginRegistry {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveWebPPlugin())
        try registry.install(TroveAVIFPlugin())
        try registry.install(TroveJXLPlugin())
        try registry.install(TroveHEIFPlugin())
        try registry.install(TroveColorPlugin())
        return registry
    }

    /// A pipeline on every codec that keeps nothing on disk.
    static func pipeline() throws -> ImagePipeline {
        try ImagePipeline(registry: registry(), configuration: .memoryOnly)
    }

    /// The largest difference between two same-sized images' colour channels.
    static func largestDifference(_ a: Image, _ b: Image) -> Int {
        var worst = 0
        for index in 0..<min(a.pixels.count, b.pixels.count) where index % 4 != 3 {
            worst = max(worst, abs(Int(a.pixels[index]) - Int(b.pixels[index])))
        }
        return worst
    }
}
