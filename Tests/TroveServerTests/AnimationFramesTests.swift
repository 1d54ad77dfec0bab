import FixtureServer
import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveServer
import TroveWebP

/// An animation longer than `--max-animation-frames` is served from its first frames, as imgproxy serves it
/// (`IMGPROXY_MAX_ANIMATION_FRAMES`), not refused: an animation of the kept frames, or a still of the first.
@Suite struct AnimationFramesTests {
    static let signer = URLSigner.test
    /// Six frames, each one pixel of its own colour shown for 70 ms; repeated 3 times (played 4).
    static let colors: [[UInt8]] = [
        [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255]
    ]
    static let gif = animatedGIF(colors: colors, delayCentiseconds: 7, loops: 3)

    /// A GIF of one-pixel frames, one per colour: a local two-colour table and the LZW codes clear (4),
    /// index 0, end (5) in 3-bit codes, each after a graphic control extension giving the delay.
    static func animatedGIF(colors: [[UInt8]], delayCentiseconds: UInt8, loops: UInt8) -> Data {
        var gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]
        gif += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, loops, 0, 0]
        for color in colors {
            gif += [0x21, 0xF9, 4, 0, delayCentiseconds, 0, 0, 0]
            gif += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0x80] + color + [255, 255, 255] + [2, 2, 0x44, 0x01, 0]
        }
        gif.append(0x3B)
        return Data(gif)
    }

    /// The answer to `options` (imgproxy's, may be empty) for the GIF under a frame limit of `maxFrames`.
    func serve(_ options: String, as format: String?, maxFrames: Int) async throws -> Data {
        let origin = FixtureServer(routes: ["/animated.gif": .file(Self.gif, contentType: "image/gif")])
        let harness = try await ServerHarness.start(origin: origin) {
            $0.keys = [Self.signer.key]
            $0.salts = [Self.signer.salt]
            $0.pipeline.decodingLimits.maxFrames = maxFrames
        }
        defer { Task { await harness.stop() } }
        let answer = try await harness.request(
            Self.signer.signed("\(options)/plain/\(origin.url("/animated.gif"))" + (format.map { "@\($0)" } ?? "")))
        #expect(answer.status.code == 200, "\(answer.status) \(answer.text)")
        return answer.bytes
    }

    /// Whether `pixels` start with `color`, within what lossy WebP does to a single pixel.
    func shows(_ pixels: [UInt8], _ color: [UInt8]) -> Bool {
        pixels.count >= 3 && zip(pixels, color).allSatisfy { abs(Int($0) - Int($1)) <= 48 }
    }

    /// Whether `frames` show `colors`, one each, in order.
    func show(_ frames: [AnimationFrame], _ colors: ArraySlice<[UInt8]>) -> Bool {
        frames.count == colors.count && zip(frames, colors).allSatisfy { shows($0.pixels, $1) }
    }

    /// With nothing to change and no extension, a GIF is answered with its own bytes (nothing here encodes GIF,
    /// so the source's format cannot be kept otherwise); resized, it keeps its frames as an animated WebP.
    @Test func aGIFWithNothingToChangeIsItsOwnBytesAndResizedAnAnimatedWebP() async throws {
        #expect(try await serve("", as: nil, maxFrames: 100) == Self.gif)
        let resized = try WebPDecoder().decode(
            try await serve("/rs:fit:1:1", as: nil, maxFrames: 100), limits: .default)
        #expect(show(resized.frames, Self.colors[...]), "\(resized.frames.map(\.pixels))")
    }

    @Test func anAnimationOverTheLimitKeepsItsFirstFrames() async throws {
        let webp = try await serve("", as: "webp", maxFrames: 4)
        let image = try WebPDecoder().decode(webp, limits: .default)
        #expect(image.frames.count == 4)
        #expect(show(image.frames, Self.colors.prefix(4)), "\(image.frames.map(\.pixels))")
        #expect(image.frames.allSatisfy { $0.delay == .milliseconds(70) })
        #expect(image.loopCount == 4)
        // Under the default limit of 100 every frame is kept.
        let all = try WebPDecoder().decode(try await serve("", as: "webp", maxFrames: 100), limits: .default)
        #expect(show(all.frames, Self.colors[...]), "\(all.frames.map(\.pixels))")
    }

    @Test func aStillOfAnAnimationOverTheLimitIsItsFirstFrame() async throws {
        let png = try PNGDecoder().decode(try await serve("", as: "png", maxFrames: 4), limits: .default)
        #expect(png.width == 1 && png.height == 1 && png.frames.isEmpty)
        #expect(Array(png.pixels.prefix(3)) == Self.colors[0], "\(png.pixels)")
        // A limit of one frame makes even an animated format a still.
        let webp = try WebPDecoder().decode(try await serve("", as: "webp", maxFrames: 1), limits: .default)
        #expect(webp.frames.isEmpty && shows(webp.pixels, Self.colors[0]), "\(webp.pixels)")
    }
}
