import Foundation
import Testing
import Trove
import TroveCodec
import TroveSupport
import TroveTestSupport

/// The PNG orientation fixtures with their eXIf chunk rewritten the way ImageMagick keeps EXIF (a "Raw profile
/// type exif" tEXt chunk, the block in hex), as in Pillow's `exif_imagemagick_orientation.png`: through
/// `ImagePipeline` the picture comes out as Pillow's `exif_transpose` displays it, as it does from eXIf.
@Suite struct ImageMagickRawProfileTests {
    static let files = DisplayFixtures.entries("exif-orientation").filter { $0.format == "png" }

    /// `png` with its eXIf chunk replaced by a tEXt chunk holding the same bytes as ImageMagick writes them.
    static func rawProfileCopy(of png: Data) throws -> Data {
        var output = Data(png.prefix(8))
        var offset = 8
        var replaced = false
        while offset + 12 <= png.count {
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let chunk = png[offset..<(offset + 12 + length)]
            if type == "eXIf" {
                let payload = Array(png[(offset + 8)..<(offset + 8 + length)])
                let hex = payload.map { String(format: "%02x", $0) }.joined()
                let lines = stride(from: 0, to: hex.count, by: 72).map {
                    String(hex.dropFirst($0).prefix(72))
                }
                let text =
                    "\nexif\n" + String(format: "%8d", payload.count) + "\n" + lines.joined(separator: "\n") + "\n"
                let body = Array("tEXt".utf8) + Array("Raw profile type exif".utf8) + [0] + Array(text.utf8)
                func bigEndian(_ value: UInt32) -> [UInt8] {
                    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
                }
                output.append(contentsOf: bigEndian(UInt32(body.count - 4)) + body)
                output.append(contentsOf: bigEndian(body.withUnsafeBytes { CRC32.checksum($0) }))
                replaced = true
            } else {
                output.append(chunk)
            }
            offset += 12 + length
        }
        try #require(replaced, "no eXIf chunk to replace")
        return output
    }

    @Test(arguments: files.map(\.name))
    func theRawProfilesOrientationIsApplied(_ name: String) async throws {
        let entry = try #require(DisplayFixtures.manifest.files[name])
        let copy = try Self.rawProfileCopy(of: try DisplayFixtures.data(name))
        #expect(PNGDecoder().exif(copy) != nil && !copy.contains(Data("eXIf".utf8)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imagemagick-\(UUID())-\(name)")
        try copy.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let reference = try DisplayFixtures.reference(try #require(entry.reference))
        let response = try await DisplayFixtures.pipeline().image(for: file)
        #expect(response.image.width == entry.displayedWidth && response.image.height == entry.displayedHeight)
        #expect(DisplayFixtures.largestDifference(response.image, reference) <= 2, "\(name)")
        // A box as wide as the displayed picture and half its height: planned on the header's orientation.
        let box = ResizeTransformer(
            width: entry.displayedWidth / 2, height: entry.displayedHeight / 2, mode: .fit, filter: .lanczos3)
        let boxed = try await DisplayFixtures.pipeline().image(
            for: ImageRequest(url: file, transforms: [box], outputFormat: .png))
        #expect(boxed.image.width == entry.displayedWidth / 2 && boxed.image.height == entry.displayedHeight / 2)
        #expect(DisplayFixtures.largestDifference(boxed.image, try box.transform(reference)) <= 3, "\(name)")
    }
}
