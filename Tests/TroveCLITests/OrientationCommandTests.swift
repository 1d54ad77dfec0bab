import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `trove convert`, `trove get` and `trove prefetch --transform` give the picture as displayed: every EXIF
/// orientation in JPEG, WebP and PNG (written by Pillow) comes out as Pillow's `exif_transpose` shows it, and
/// `--keep-orientation` writes the stored pixels with the orientation, read back by exiftool.
@Suite struct OrientationCommandTests {
    static let directory = Fixtures.url("orientation")
    static let files = ["jpeg": "jpg", "webp": "webp", "png": "png"].flatMap { format, ext in
        (1...8).map { "exif-\(format)-o\($0).\(ext)" }
    }.sorted()

    /// `trove decode --rgba` of `path`: its size and pixels, as displayed.
    static func decoded(_ path: String, _ cli: CLIRunner, in work: URL) async throws -> (Int, Int, [UInt8]) {
        let rgba = work.appendingPathComponent(UUID().uuidString + ".rgba").path
        let result = try await cli.run(["decode", path, "--json", "--rgba", rgba])
        try #require(result.status == 0, "\(result.stderr)")
        let line = try #require(result.jsonLines.first)
        let width = try #require(line["width"] as? Int), height = try #require(line["height"] as? Int)
        return (width, height, [UInt8](try Data(contentsOf: URL(fileURLWithPath: rgba))))
    }

    /// PSNR (dB) of two RGBA buffers' colours.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let errors = zip(a, b).enumerated().filter { $0.offset % 4 != 3 }.map {
            let d = Double($0.element.0) - Double($0.element.1)
            return d * d
        }
        let mse = errors.reduce(0, +) / Double(max(errors.count, 1))
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The largest difference between two RGBA buffers' colours.
    static func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).enumerated().filter { $0.offset % 4 != 3 }.map { abs(Int($0.element.0) - Int($0.element.1)) }
            .max() ?? .max
    }

    static func reference(_ name: String) -> String {
        directory.appendingPathComponent(
            name.replacingOccurrences(of: ".", with: "-ref.")
                .replacingOccurrences(of: "-ref.jpg", with: "-ref.png").replacingOccurrences(
                    of: "-ref.webp", with: "-ref.png")
        )
        .path
    }

    @Test func convertWritesEveryOrientationUpright() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        for name in Self.files {
            let source = Self.directory.appendingPathComponent(name).path
            let out = work.appendingPathComponent("\(name).png").path
            let converted = try await cli.run(["convert", source, out])
            try #require(converted.status == 0, "\(name): \(converted.stderr)")
            let (width, height, pixels) = try await Self.decoded(out, cli, in: work)
            let (refWidth, refHeight, reference) = try await Self.decoded(Self.reference(name), cli, in: work)
            #expect(width == refWidth && height == refHeight, "\(name)")
            #expect(Self.largestDifference(pixels, reference) <= 2, "\(name)")
            // A fit box half the displayed size: a portrait picture makes a portrait thumbnail.
            let boxed = try await cli.run([
                "convert", source, out, "--transform", "resize:w=\(refWidth / 2),h=\(refHeight / 2),mode=fit", "--json"
            ])
            #expect(boxed.jsonLines.first?["width"] as? Int == refWidth / 2, "\(name)")
            #expect(boxed.jsonLines.first?["height"] as? Int == refHeight / 2, "\(name)")
        }
    }

    @Test(arguments: ["jpeg", "png", "webp"])
    func convertKeepingTheOrientationWritesItForExiftool(_ format: String) async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        for orientation in 1...8 {
            let name = "exif-jpeg-o\(orientation).jpg"
            let source = Self.directory.appendingPathComponent(name).path
            let out = work.appendingPathComponent("kept-\(orientation).\(format)").path
            let kept = try await cli.run(["convert", source, out, "--format", format, "--keep-orientation", "--json"])
            try #require(kept.status == 0, "\(kept.stderr)")
            // The stored pixels: 48x32 or 32x48 as stored, whatever the display.
            let stored = orientation >= 5 ? (32, 48) : (48, 32)
            #expect(kept.jsonLines.first?["width"] as? Int == stored.0, "\(name)")
            let tag = try await runSubprocess(
                URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s3", "-n", "-Orientation", out])
            let written = String(decoding: tag.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(
                written == (orientation == 1 ? "" : "\(orientation)"),
                "\(name) as \(format): exiftool says '\(written)'")
            // Displayed (decode turns it upright), it is the source's picture.
            let (width, height, pixels) = try await Self.decoded(out, cli, in: work)
            let (refWidth, refHeight, reference) = try await Self.decoded(Self.reference(name), cli, in: work)
            #expect(width == refWidth && height == refHeight, "\(name) as \(format)")
            // PNG keeps the decoded pixels; JPEG and WebP encode them once more.
            if format == "png" {
                #expect(Self.largestDifference(pixels, reference) <= 2, "\(name)")
            } else {
                #expect(Self.psnr(pixels, reference) > 30, "\(name) as \(format)")
            }
        }
    }

    @Test func getAndPrefetchGiveTheDisplayedPicture() async throws {
        let server = try FixtureServer(serving: Self.directory, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let box = ["--transform", "resize:w=120,h=120,mode=fit,filter=lanczos3"]
        let url = server.url("/portrait-o6.jpg").absoluteString

        // The original bytes (which carry the tag) and the displayed size.
        let plain = try await cli.run(["get", url, "-o", work.appendingPathComponent("plain.jpg").path, "--json"])
        let plainBytes = try Data(contentsOf: work.appendingPathComponent("plain.jpg"))
        // A portrait thumbnail, and the stored one when asked.
        let thumbnail = try await cli.run(["get", url, "-o", work.appendingPathComponent("t.png").path, "--json"] + box)
        let stored = try await cli.run(["get", url, "--keep-orientation", "--json"] + box)
        // prefetch warms the processed variant; a cache-only get then reads it from disk.
        let list = work.appendingPathComponent("urls.txt")
        try Data((url + "\n").utf8).write(to: list)
        let fresh = CLIRunner(cacheDirectory: work.appendingPathComponent("fresh"))
        let warmed = try await fresh.run(["prefetch", list.path, "--json"] + box)
        let read = try await fresh.run(["get", url, "--policy", "cache-only", "--json"] + box)
        await server.stop()

        #expect(plain.jsonLines.first?["width"] as? Int == 480 && plain.jsonLines.first?["height"] as? Int == 640)
        #expect(plainBytes == (try Data(contentsOf: Self.directory.appendingPathComponent("portrait-o6.jpg"))))
        #expect(thumbnail.jsonLines.first?["width"] as? Int == 90, "\(thumbnail.stderr)")
        #expect(thumbnail.jsonLines.first?["height"] as? Int == 120)
        #expect(stored.jsonLines.first?["width"] as? Int == 120 && stored.jsonLines.first?["height"] as? Int == 90)
        #expect(warmed.status == 0 && warmed.jsonLines.last?["fetched"] as? Int == 1, "\(warmed.stderr)")
        #expect(read.jsonLines.first?["source"] as? String == "disk", "\(read.stderr)")
        #expect(read.jsonLines.first?["width"] as? Int == 90 && read.jsonLines.first?["height"] as? Int == 120)
    }
}
