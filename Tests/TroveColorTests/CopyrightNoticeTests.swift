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

/// Output keeps the source's copyright notice (EXIF Copyright and Artist) and no other metadata, as
/// imgproxy's `keep_copyright` does by default; `--drop-copyright` leaves it out too.
@Suite(.serialized) struct CopyrightNoticeTests {
    static let trove = productsDirectory().appendingPathComponent("trove")
    static let notice = CopyrightNotice(copyright: "© 2026 Ana Lima", artist: "Ana")

    /// Pillow's reading of each file's EXIF: copyright, artist and make, or nil for no EXIF.
    static func pillowTags(_ files: [URL]) async throws -> [String: [String: String?]?] {
        try JSONDecoder().decode(
            [String: [String: String?]?].self,
            from: try await ColorCases.pillow("exif_tags.py", ["read"] + files.map(\.path)))
    }

    /// A camera's JPEG, written by Pillow: EXIF Copyright "(c) 2026 Ana Lima", Artist "Ana Lima" and Make.
    static func writeCameraJPEG(to file: URL) async throws {
        _ = try await ColorCases.pillow("exif_tags.py", ["write", file.path])
    }

    @Test func aWrittenNoticeReadsBackWithEitherByteOrder() throws {
        let tiff = try #require(ExifBlock.tiff(for: Self.notice))
        #expect(ExifBlock(tiff: tiff)?.copyrightNotice == Self.notice)
        #expect(ExifBlock.tiff(for: CopyrightNotice()) == nil)
        // A big-endian block as cameras write it: Orientation 6 (a SHORT), then Copyright at an offset.
        let text = Array("Studio".utf8) + [0]
        var motorola: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 2]
        motorola += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]
        motorola += [0x82, 0x98, 0, 2, 0, 0, 0, UInt8(text.count), 0, 0, 0, 38]
        motorola += [0, 0, 0, 0] + text
        let block = try #require(ExifBlock(tiff: motorola))
        #expect(block.orientation == .right)
        #expect(block.copyrightNotice == CopyrightNotice(copyright: "Studio"))
        // Cut inside the copyright's text: the tag reads as absent, the orientation still reads.
        let cut = try #require(ExifBlock(tiff: motorola.dropLast(3)))
        #expect(cut.copyrightNotice == nil && cut.orientation == .right)
        #expect(ExifBlock(tiff: [0x49, 0x49, 42, 0, 200, 0, 0, 0]) == nil)
    }

    @Test func everyEncoderWritesTheNoticeBack() async throws {
        let encoders: [any ImageEncoder] = [
            PNGEncoder(), JPEGEncoder(), WebPEncoder(), AVIFEncoder(), HEIFEncoder(), JXLEncoder()
        ]
        let decoders: [ImageFormat: any ImageDecoder] = [
            .png: PNGDecoder(), .jpeg: JPEGDecoder(), .webp: WebPDecoder(), .avif: AVIFDecoder(),
            .heic: HEIFDecoder(), .jxl: JXLDecoder()
        ]
        var image = ProfileEmbeddingTests.tagged(nil)
        image.copyright = Self.notice
        try await withTemporaryDirectory { directory in
            var files: [URL] = []
            for encoder in encoders {
                let data = try encoder.encode(image, options: EncodingOptions())
                let decoder = try #require(decoders[encoder.format])
                #expect(decoder.copyrightNotice(data) == Self.notice, "\(encoder.format)")
                let plain = try encoder.encode(ProfileEmbeddingTests.tagged(nil), options: EncodingOptions())
                #expect(decoder.copyrightNotice(plain) == nil, "\(encoder.format) without a notice")
                let file = directory.appendingPathComponent("notice.\(encoder.format.rawValue)")
                try data.write(to: file)
                files.append(file)
            }
            let tags = try await Self.pillowTags(files)
            for file in files {
                let found = tags[file.path] ?? nil
                #expect(
                    found?["copyright"] == Self.notice.copyright,
                    "\(file.lastPathComponent): \(String(describing: found))")
                #expect(found?["artist"] == Self.notice.artist, "\(file.lastPathComponent)")
            }
        }
    }

    /// `trove convert` of a camera JPEG keeps Copyright and Artist and drops Make; with --drop-copyright the
    /// output has no EXIF at all.
    @Test func convertKeepsOnlyTheNoticeUnlessAskedToDropIt() async throws {
        try await withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent("camera.jpg")
            try await Self.writeCameraJPEG(to: source)
            var outputs: [URL] = []
            for (name, flags) in [("kept", [String]()), ("dropped", ["--drop-copyright"])] {
                for ext in ["png", "jpg", "webp"] {
                    let output = directory.appendingPathComponent("\(name).\(ext)")
                    let result = try await runSubprocess(
                        Self.trove, ["convert", "--transform", "resize:w=32"] + flags + [source.path, output.path],
                        environment: ["TROVE_CACHE_DIR": directory.path])
                    try #require(result.status == 0, "trove convert \(flags): \(result.stderr)")
                    outputs.append(output)
                }
            }
            let tags = try await Self.pillowTags(outputs)
            for output in outputs {
                let found = tags[output.path] ?? nil
                if output.lastPathComponent.hasPrefix("kept") {
                    #expect(found?["copyright"] == "(c) 2026 Ana Lima", "\(output.lastPathComponent)")
                    #expect(found?["artist"] == "Ana Lima", "\(output.lastPathComponent)")
                    #expect(found?["make"] == .some(nil), "\(output.lastPathComponent) keeps Make")
                } else {
                    #expect(found == nil, "\(output.lastPathComponent): \(String(describing: found))")
                }
            }
        }
    }
}
