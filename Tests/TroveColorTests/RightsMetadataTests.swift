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

/// The XMP and IPTC-IIM rights fields travel like EXIF's Copyright and Artist: read from each format's place
/// for them, kept by default and written by every encoder (JPEG also as IPTC-IIM), dropped with
/// `dropsCopyright`; no other field of those blocks reaches the output. Sources are tagged and outputs read by
/// exiftool, a reader (and writer) independent of Trove.
@Suite(.serialized) struct RightsMetadataTests {
    static let trove = productsDirectory().appendingPathComponent("trove")
    static let extensions: [ImageFormat: String] = [
        .png: "png", .jpeg: "jpg", .webp: "webp", .avif: "avif", .heic: "heic", .jxl: "jxl"
    ]

    /// What the tagged sources hold, as Trove reads it: XMP's fields win over IPTC-IIM's.
    static let expected: CopyrightNotice = {
        var notice = CopyrightNotice(copyright: "© 2026 Ana Lima & Co <studio>", artist: "Ana Lima; Bo Chen")
        notice.usageTerms = "Editorial use only"
        notice.webStatement = "https://example.com/licence?a=1&b=2"
        notice.marked = true
        notice.credit = "Agency \"X\""
        return notice
    }()

    /// exiftool's arguments that write `expected` as XMP, with fields that are not rights beside them.
    static let xmpArguments = [
        "-XMP-dc:Rights=© 2026 Ana Lima & Co <studio>", "-XMP-dc:Creator=Ana Lima", "-XMP-dc:Creator=Bo Chen",
        "-XMP-xmpRights:UsageTerms=Editorial use only",
        "-XMP-xmpRights:WebStatement=https://example.com/licence?a=1&b=2", "-XMP-xmpRights:Marked=True",
        "-XMP-photoshop:Credit=Agency \"X\"", "-XMP-xmp:CreatorTool=Camera App 1.0",
        "-XMP-exif:GPSLatitude=48.85", "-XMP-exif:GPSLongitude=2.35", "-XMP-dc:Subject=cat",
        "-XMP-photoshop:Source=Wire"
    ]
    /// exiftool's arguments that write IPTC-IIM, UTF-8, with fields that are not rights.
    static let iptcArguments = [
        "-IPTC:CopyrightNotice=(c) IPTC notice", "-IPTC:By-line=IPTC Person", "-IPTC:Credit=IPTC credit",
        "-IPTC:Keywords=cat", "-IPTC:Source=Wire", "-IPTC:City=Paris", "-codedcharacterset=utf8"
    ]

    /// Runs exiftool with `arguments`; its standard output.
    @discardableResult
    static func exiftool(_ arguments: [String]) async throws -> Data {
        let result = try await runSubprocess(URL(fileURLWithPath: "/usr/bin/env"), ["exiftool"] + arguments)
        guard result.status == 0 else {
            throw ColorCases.ScriptFailed(script: "exiftool \(arguments.prefix(3))", stderr: result.stderr)
        }
        return result.stdout
    }

    /// Writes `arguments`' tags into `file` in place.
    static func tag(_ file: URL, _ arguments: [String]) async throws {
        // -m: a bare JPEG XL codestream is wrapped in a container to take the XMP box (a "minor" error otherwise).
        try await exiftool(["-m", "-q", "-overwrite_original"] + arguments + [file.path])
    }

    /// exiftool's reading of each file, tags named GROUP:NAME (the EXIF ones under IFD0), by path.
    static func tags(_ files: [URL]) async throws -> [String: [String: Any]] {
        let output = try await exiftool(["-j", "-G1", "-struct", "-a"] + files.map(\.path))
        let list = try #require(try JSONSerialization.jsonObject(with: output) as? [[String: Any]])
        var byPath: [String: [String: Any]] = [:]
        for entry in list {
            guard let path = entry["SourceFile"] as? String else { continue }
            byPath[path] = entry
        }
        return byPath
    }

    /// A 24x16 gradient in `format`, by Trove's encoder, with no metadata.
    static func plain(_ format: ImageFormat) throws -> Data {
        let encoder = try #require(ProfileEmbeddingTests.encoders.first { $0.format == format })
        return try encoder.encode(ProfileEmbeddingTests.tagged(nil), options: EncodingOptions())
    }

    /// `jpeg` with `segments` (whole markers) right after its SOI.
    static func inserting(_ segments: [UInt8], into jpeg: Data) -> Data {
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: segments)
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// One JPEG marker with `code` and `payload`.
    static func marker(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, code, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    /// exiftool tags each format's own place for XMP (and JPEG's APP13 for IPTC-IIM); Trove's decoders find
    /// the rights fields there, XMP's over IPTC's.
    @Test func decodersReadTheRightsFieldsExiftoolWrote() async throws {
        try await withTemporaryDirectory { directory in
            for (format, ext) in Self.extensions.sorted(by: { $0.value < $1.value }) {
                let file = directory.appendingPathComponent("source.\(ext)")
                try Self.plain(format).write(to: file)
                try await Self.tag(file, Self.xmpArguments + (format == .jpeg ? Self.iptcArguments : []))
                let decoder = try #require(ProfileEmbeddingTests.decoders[format])
                let data = try Data(contentsOf: file)
                #expect(decoder.copyrightNotice(data) == Self.expected, "\(format)")
                _ = try decoder.decode(data, limits: .default)
            }
            // IPTC-IIM alone: its Copyright Notice, By-lines and Credit.
            let iptcOnly = directory.appendingPathComponent("iptc.jpg")
            try Self.plain(.jpeg).write(to: iptcOnly)
            try await Self.tag(iptcOnly, Self.iptcArguments + ["-IPTC:By-line+=Second Person"])
            var notice = CopyrightNotice(copyright: "(c) IPTC notice", artist: "IPTC Person; Second Person")
            notice.credit = "IPTC credit"
            #expect(JPEGDecoder().copyrightNotice(try Data(contentsOf: iptcOnly)) == notice)
        }
    }

    /// `trove convert` of a JPEG whose XMP and IPTC-IIM carry rights and other fields: each output format
    /// keeps the rights (as XMP, EXIF where it has a tag, and IPTC-IIM in JPEG) and nothing else; with
    /// --drop-copyright it has no EXIF, XMP or IPTC at all.
    @Test func convertKeepsTheRightsInEveryFormatUnlessDropped() async throws {
        try await withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent("tagged.jpg")
            try Self.plain(.jpeg).write(to: source)
            try await Self.tag(source, Self.xmpArguments + Self.iptcArguments)
            var outputs: [URL] = []
            for (name, flags) in [("kept", [String]()), ("dropped", ["--drop-copyright"])] {
                for ext in Self.extensions.values.sorted() {
                    let output = directory.appendingPathComponent("\(name).\(ext)")
                    let result = try await runSubprocess(
                        Self.trove, ["convert", "--transform", "resize:w=16"] + flags + [source.path, output.path],
                        environment: ["TROVE_CACHE_DIR": directory.path])
                    try #require(result.status == 0, "trove convert \(flags) to \(ext): \(result.stderr)")
                    outputs.append(output)
                }
            }
            let found = try await Self.tags(outputs)
            let carried = ["XMP-", "IPTC:", "IFD0:", "ExifIFD:", "GPS:"]
            for output in outputs {
                let file = output.lastPathComponent
                let tags = try #require(found[output.path], "\(file) was not read")
                let metadata = tags.keys.filter { key in carried.contains { key.hasPrefix($0) } }
                guard file.hasPrefix("kept") else {
                    #expect(metadata.isEmpty, "\(file) keeps \(metadata.sorted())")
                    continue
                }
                #expect(tags["XMP-dc:Rights"] as? String == Self.expected.copyright, "\(file)")
                #expect(tags["XMP-dc:Creator"] as? [String] == ["Ana Lima", "Bo Chen"], "\(file)")
                #expect(tags["XMP-xmpRights:UsageTerms"] as? String == Self.expected.usageTerms, "\(file)")
                #expect(tags["XMP-xmpRights:WebStatement"] as? String == Self.expected.webStatement, "\(file)")
                #expect(tags["XMP-xmpRights:Marked"] as? Bool == true, "\(file)")
                #expect(tags["XMP-photoshop:Credit"] as? String == Self.expected.credit, "\(file)")
                #expect(tags["IFD0:Copyright"] as? String == Self.expected.copyright, "\(file)")
                #expect(tags["IFD0:Artist"] as? String == Self.expected.artist, "\(file)")
                var allowed: Set = [
                    "XMP-dc:Rights", "XMP-dc:Creator", "XMP-xmpRights:UsageTerms", "XMP-xmpRights:WebStatement",
                    "XMP-xmpRights:Marked", "XMP-photoshop:Credit", "IFD0:Copyright", "IFD0:Artist"
                ]
                if file.hasSuffix(".jpg") {
                    #expect(tags["IPTC:CopyrightNotice"] as? String == Self.expected.copyright, "\(file)")
                    #expect(tags["IPTC:By-line"] as? [String] == ["Ana Lima", "Bo Chen"], "\(file)")
                    #expect(tags["IPTC:Credit"] as? String == Self.expected.credit, "\(file)")
                    allowed.formUnion([
                        "IPTC:CopyrightNotice", "IPTC:By-line", "IPTC:Credit", "IPTC:CodedCharacterSet",
                        "IPTC:ApplicationRecordVersion"
                    ])
                }
                let extra = metadata.filter { !allowed.contains($0) }
                #expect(extra.isEmpty, "\(file) carries \(extra.sorted())")
                #expect(!tags.keys.contains { $0.contains("CreatorTool") || $0.contains("GPS") }, "\(file)")
            }
        }
    }

    /// Every encoder writes every field, with XML's special characters and a NUL-separated EXIF copyright,
    /// so that exiftool and Trove's own decoder read the same text back; an image without a notice gets
    /// no XMP.
    @Test func everyEncoderWritesTheRightsBackEscaped() async throws {
        var notice = CopyrightNotice(
            copyright: "Tom & Jerry <toons> \"quoted\" 'single'\0Editor & co", artist: "A<b>; C&d")
        notice.usageTerms = "Terms & <conditions>"
        notice.webStatement = "https://example.com/?x=<1>&y=\"2\""
        notice.marked = false
        notice.credit = "Credit & \"more\""
        var image = ProfileEmbeddingTests.tagged(nil)
        image.copyright = notice
        try await withTemporaryDirectory { directory in
            var files: [URL] = []
            for encoder in ProfileEmbeddingTests.encoders {
                let data = try encoder.encode(image, options: EncodingOptions())
                let decoder = try #require(ProfileEmbeddingTests.decoders[encoder.format])
                #expect(decoder.copyrightNotice(data) == notice, "\(encoder.format)")
                let ext = try #require(Self.extensions[encoder.format])
                let file = directory.appendingPathComponent("escaped.\(ext)")
                try data.write(to: file)
                files.append(file)
                let plain = directory.appendingPathComponent("plain.\(ext)")
                try Self.plain(encoder.format).write(to: plain)
                files.append(plain)
            }
            let found = try await Self.tags(files)
            for file in files {
                let tags = try #require(found[file.path])
                let name = file.lastPathComponent
                guard name.hasPrefix("escaped") else {
                    #expect(!tags.keys.contains { $0.hasPrefix("XMP") || $0.hasPrefix("IPTC") }, "\(name)")
                    continue
                }
                #expect(tags["XMP-dc:Rights"] as? String == "Tom & Jerry <toons> \"quoted\" 'single'; Editor & co")
                #expect(tags["XMP-dc:Creator"] as? [String] == ["A<b>", "C&d"], "\(name)")
                #expect(tags["XMP-xmpRights:UsageTerms"] as? String == notice.usageTerms, "\(name)")
                #expect(tags["XMP-xmpRights:WebStatement"] as? String == notice.webStatement, "\(name)")
                #expect(tags["XMP-xmpRights:Marked"] as? Bool == false, "\(name)")
                #expect(tags["XMP-photoshop:Credit"] as? String == notice.credit, "\(name)")
            }
        }
    }

    /// A broken XMP packet reads as absent: the picture still decodes and converts, and the notice comes from
    /// the blocks that are whole (EXIF, IPTC-IIM). A damaged compressed iTXt in a PNG likewise.
    @Test func malformedXMPNeverBreaksDecoding() async throws {
        let broken = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:rights><rdf:Alt><rdf:li>Lost
            """.utf8)
        let exif = try #require(ExifBlock.tiff(for: CopyrightNotice(copyright: "EXIF notice")))
        let iim: [UInt8] = [0x1C, 2, 110, 0, 6] + Array("Wire X".utf8)
        var resources: [UInt8] = Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, UInt8(iim.count)] + iim
        if iim.count % 2 == 1 { resources.append(0) }
        let segments =
            Self.marker(0xE1, Array("Exif".utf8) + [0, 0] + exif)
            + Self.marker(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + broken)
            + Self.marker(0xED, Array("Photoshop 3.0".utf8) + [0] + resources)
        let jpeg = Self.inserting(segments, into: try Self.plain(.jpeg))
        var expected = CopyrightNotice(copyright: "EXIF notice")
        expected.credit = "Wire X"
        #expect(JPEGDecoder().copyrightNotice(jpeg) == expected)
        _ = try JPEGDecoder().decode(jpeg, limits: .default)

        // PNG: an iTXt XMP chunk that claims zlib compression but holds garbage, with a correct CRC.
        let png = try Self.plain(.png)
        let body = Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + [1, 2, 3, 4]
        let typed = Array("iTXt".utf8) + body
        let crc = CRC32Reference.checksum(typed)
        let chunk = [0, 0, 0, UInt8(body.count)] + typed + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
        // After the signature (8 bytes) and IHDR (25).
        let damaged = png.prefix(33) + Data(chunk) + png.dropFirst(33)
        #expect(PNGDecoder().copyrightNotice(damaged) == nil)
        _ = try PNGDecoder().decode(damaged, limits: .default)

        try await withTemporaryDirectory { directory in
            for (name, data) in [("broken.jpg", jpeg), ("broken.png", damaged)] {
                let source = directory.appendingPathComponent(name)
                try data.write(to: source)
                let output = directory.appendingPathComponent("out-\(name).png")
                let result = try await runSubprocess(
                    Self.trove, ["convert", source.path, output.path], environment: ["TROVE_CACHE_DIR": directory.path])
                #expect(result.status == 0, "trove convert \(name): \(result.stderr)")
                let notice = PNGDecoder().copyrightNotice(try Data(contentsOf: output))
                #expect(notice == (name.hasSuffix(".jpg") ? expected : nil), "\(name)")
            }
        }
    }

    /// Through the pipeline: kept by default, with every field; `dropsCopyright` leaves no metadata block.
    @Test func pipelineKeepsTheRightsUnlessTheRequestDropsThem() async throws {
        try await withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent("tagged.jpg")
            try Self.plain(.jpeg).write(to: source)
            try await Self.tag(source, Self.xmpArguments + Self.iptcArguments)
            let pipeline = try ImagePipeline(
                registry: try ColorCases.registry(color: false), configuration: .memoryOnly)
            func result(_ options: ImageRequest.Options, _ format: ImageFormat) async throws -> Data {
                try await pipeline.image(
                    for: ImageRequest(
                        url: source, transforms: [ResizeTransformer(width: 8, height: 8, mode: .fit)],
                        options: options, outputFormat: format)
                ).data
            }
            for format in [ImageFormat.png, .jpeg, .webp] {
                let decoder = try #require(ProfileEmbeddingTests.decoders[format])
                let kept = try await result([], format)
                let dropped = try await result(.dropsCopyright, format)
                #expect(decoder.copyrightNotice(kept) == Self.expected, "\(format)")
                let reader = try #require(decoder as? any EmbeddedMetadataReading)
                #expect(reader.embeddedMetadata(dropped) == EmbeddedMetadata(), "\(format)")
                #expect(reader.embeddedMetadata(kept).xmp != nil, "\(format)")
            }
        }
    }
}

/// zlib's CRC-32, written out here so the test's PNG chunk does not lean on the code under test.
enum CRC32Reference {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
