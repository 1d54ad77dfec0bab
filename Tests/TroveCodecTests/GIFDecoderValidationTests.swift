import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// Broken and oversized GIFs are refused with an error that names the problem; cut ones are read as far as
/// browsers read them.
@Suite struct GIFDecoderValidationTests {
    func reason(_ bytes: [UInt8], limits: DecodingLimits = .default) -> String? {
        do {
            _ = try GIFDecoder().decode(Data(bytes), limits: limits)
            return nil
        } catch let TroveError.decodingFailed(format, reason) {
            #expect(format == .gif)
            return reason
        } catch {
            return "\(error)"
        }
    }

    /// A cut file is read as browsers show it: an error only while no frame's data has begun; after that,
    /// the frames it holds whole (a first frame as far as its data goes, the rest of it left transparent).
    @Test func aCutFileIsAnErrorOnlyBeforeItsFirstFramesData() throws {
        for name in ["animated", "interlaced", "still"] {
            let gif = [UInt8](try Fixtures.gif(name))
            let full = try GIFDecoder().decode(Data(gif), limits: .default)
            let fullFrames = full.frames.isEmpty ? [full.pixels] : full.frames.map(\.pixels)
            var firstDecoded: Int?
            // Pixels of a first frame shown whole or cut that are the whole decode's; a cut one shows more as
            // the file grows.
            var shown = 0
            var cutFramesSeen = 0
            var mostShownByACutFrame = 0
            let transparentInFull = stride(from: 3, to: fullFrames[0].count, by: 4).filter { fullFrames[0][$0] == 0 }
                .count
            // Every prefix of the small files; about 300 spread over the larger one.
            for length in stride(from: 0, to: gif.count, by: max(1, gif.count / 300)) {
                let prefix = Data(gif[0..<length])
                guard let image = try? GIFDecoder().decode(prefix, limits: .default) else {
                    #expect(firstDecoded == nil, "\(name): \(length) bytes failed after a shorter prefix decoded")
                    let message = try #require(reason(Array(prefix)))
                    #expect(
                        message.contains("truncated") || message.contains("signature"), "\(name) \(length): \(message)")
                    continue
                }
                firstDecoded = firstDecoded ?? length
                #expect(image.width == full.width && image.height == full.height)
                if image.frames.isEmpty {
                    // The first frame, whole or cut: every pixel is the whole decode's or not drawn yet.
                    let pixels = image.pixels.count / 4
                    let same = (0..<pixels).filter {
                        image.pixels[$0 * 4..<$0 * 4 + 4] == fullFrames[0][$0 * 4..<$0 * 4 + 4]
                    }
                    let undrawn = (0..<pixels).filter { image.pixels[$0 * 4 + 3] == 0 }
                    #expect(Set(same).union(undrawn).count == pixels, "\(name) \(length): pixels drawn wrong")
                    #expect(same.count >= shown, "\(name) \(length): a longer prefix shows less")
                    shown = same.count
                    if same.count < pixels {
                        cutFramesSeen += 1
                        mostShownByACutFrame = max(mostShownByACutFrame, same.count)
                    }
                } else {
                    #expect(Array(image.frames.map(\.pixels)) == Array(fullFrames.prefix(image.frames.count)))
                }
            }
            // Some prefixes cut the first frame and draw part of it, not nothing.
            #expect(cutFramesSeen > 0 && mostShownByACutFrame > transparentInFull, "\(name)")
            // Without its trailer byte a file is the whole image (many encoders leave it out).
            let untrailed = try GIFDecoder().decode(Data(gif.dropLast()), limits: .default)
            #expect(untrailed.pixels == full.pixels && untrailed.frames == full.frames, "\(name)")
            #expect(try #require(firstDecoded) < gif.count - 1)
        }
    }

    @Test func bytesAfterTheLastFrameThatAreNoBlockEndTheFile() throws {
        let gif = [UInt8](try Fixtures.gif("animated"))
        let full = try GIFDecoder().decode(Data(gif), limits: .default)
        let trailed = try GIFDecoder().decode(Data(gif.dropLast() + Array("GARBAGE".utf8)), limits: .default)
        #expect(trailed.frames == full.frames)
    }

    /// A frame after the first that cannot be read (its code size, or its data) ends the animation there, as
    /// browsers show it; the frames before it stand.
    @Test func anUnreadableLaterFrameEndsTheAnimation() throws {
        let gif = [UInt8](try Fixtures.gif("animated"))
        let full = try GIFDecoder().decode(Data(gif), limits: .default)
        // A 1x1 frame with code size 12, then one whose first code (7, 3 bits) is beyond the table.
        let badCodeSize: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 12, 1, 0, 0]
        let badCode: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 1, 0x07, 0]
        for tail in [badCodeSize, badCode] {
            let image = try GIFDecoder().decode(Data(gif.dropLast() + tail + [0x3B]), limits: .default)
            #expect(image.frames == full.frames)
        }
    }

    @Test func aFrameWhoseDataStopsEarlyLeavesItsOtherPixelsUndrawn() throws {
        // A 2x1 frame whose LZW data (code size 2) is clear, index 1, end: the second pixel is not drawn.
        let bytes: [UInt8] =
            Array("GIF89a".utf8) + [
                2, 0, 1, 0, 0x80, 0, 0, 10, 20, 30, 40, 50, 60,
                0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0, 0x3B
            ]
        let image = try GIFDecoder().decode(Data(bytes), limits: .default)
        #expect(image.pixels == [40, 50, 60, 255, 0, 0, 0, 0])
    }

    @Test func aMinimumCodeSizeUpTo11IsRead() throws {
        // A 1x1 frame of index 5, its codes 12 bits wide: clear (2048), 5, end (2049).
        func frame(codeSize: UInt8) -> [UInt8] {
            let width = Int(codeSize) + 1
            var bits: UInt64 = 0
            for (i, code) in [1 << Int(codeSize), 5, (1 << Int(codeSize)) + 1].enumerated() {
                bits |= UInt64(code) << UInt64(i * width)
            }
            let data = (0..<(3 * width + 7) / 8).map { UInt8(truncatingIfNeeded: bits >> UInt64($0 * 8)) }
            let palette: [UInt8] = (0..<8).flatMap { $0 == 5 ? [10, 20, 30] : [0, 0, 0] as [UInt8] }
            return Array("GIF89a".utf8) + [1, 0, 1, 0, 0x82, 0, 0] + palette
                + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, codeSize, UInt8(data.count)] + data + [0, 0x3B]
        }
        for size: UInt8 in [3, 8, 9, 11] {
            #expect(try GIFDecoder().decode(Data(frame(codeSize: size)), limits: .default).pixels == [10, 20, 30, 255])
        }
        #expect(reason(frame(codeSize: 12)) == "frame 1 has an LZW minimum code size of 12; it must be 2...11")
    }

    @Test func wrongSignature() {
        #expect(reason(Array("GIF88a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B])?.contains("signature") == true)
    }

    @Test func aFrameWithoutAnyColorTableIsReadWithAGrayRamp() throws {
        // 1x1 screen, no global table, one frame without a local table: index 1 is gray 1, as Pillow reads it.
        let bytes: [UInt8] =
            Array("GIF89a".utf8) + [
                1, 0, 1, 0, 0, 0, 0,
                0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0, 0x3B
            ]
        #expect(try GIFDecoder().decode(Data(bytes), limits: .default).pixels == [1, 1, 1, 255])
    }

    @Test func invalidLZWCode() {
        // min code size 2: codes are 3 bits; the first code 7 is beyond the table.
        let bytes: [UInt8] =
            Array("GIF89a".utf8) + [
                1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255,
                0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 1, 0x07, 0, 0x3B
            ]
        #expect(reason(bytes) == "invalid LZW code 7 in frame 1")
    }

    /// Zero bytes between blocks (after the global color table, between frames, before the trailer) are
    /// skipped: Pillow 12.0 wrote one after some files' color table, and Pillow reads past them.
    @Test func strayZerosBetweenBlocksAreSkipped() throws {
        let gif = [UInt8](try Fixtures.gif("animated"))
        let full = try GIFDecoder().decode(Data(gif), limits: .default)
        let tableEnd = 13 + (gif[10] & 0x80 != 0 ? 3 << (Int(gif[10] & 7) + 1) : 0)
        let padded = gif[..<tableEnd] + [0, 0] + gif[tableEnd..<(gif.count - 1)] + [0, 0x3B]
        let image = try GIFDecoder().decode(Data(padded), limits: .default)
        #expect(image.pixels == full.pixels && image.frames == full.frames)
    }

    @Test func unknownBlockBeforeAnyFrame() {
        let bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x99]
        #expect(reason(bytes) == "unknown block type 0x99 at byte 13")
    }

    @Test func screenOverTheLimitIsRefusedBeforeDecoding() {
        // 60000 x 60000 declared, no pixel data at all behind it.
        let bytes: [UInt8] =
            Array("GIF89a".utf8) + [
                0x60, 0xEA, 0x60, 0xEA, 0x80, 0, 0, 0, 0, 0, 255, 255, 255,
                0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0, 0x3B
            ]
        #expect(throws: TroveError.imageTooLarge(width: 60000, height: 60000, limit: 100_000_000)) {
            try GIFDecoder().decode(Data(bytes), limits: .default)
        }
    }

    @Test func animationOverTheByteLimitIsRefusedAsTooLargeNotDamaged() throws {
        let gif = try Fixtures.gif("animated")  // 5 frames of 24x20: 9600 bytes
        #expect(
            throws: TroveError.tooLargeToDecode(needed: 9600, limit: 9000, setting: "DecodingLimits.maxDecodedBytes")
        ) {
            try GIFDecoder().decode(gif, limits: DecodingLimits(maxDecodedBytes: 9000))
        }
        #expect(try GIFDecoder().decode(gif, limits: DecodingLimits(maxDecodedBytes: 9600)).frames.count == 5)
    }

    @Test func infoReadsTheScreenAndFrameCountWithoutDecoding() throws {
        let info = try GIFDecoder().info(try Fixtures.gif("animated"))
        #expect(info == ImageInfo(format: .gif, width: 24, height: 20, frameCount: 5))
        #expect(try GIFDecoder().info(try Fixtures.gif("still"))?.frameCount == 1)
    }

    @Test func animationOverTheFrameLimitKeepsItsFirstFrames() throws {
        // 5 frames: the first frames as the whole decode has them, for every limit.
        #expect(try GIFDecoder().limitsNotKeepingFirstFrames(of: try Fixtures.gif("animated"), frames: 5) == [])
    }

    @Test func onlyTheKeptFramesCountTowardTheByteLimit() throws {
        let gif = try Fixtures.gif("animated")  // 5 frames of 24x20: 1920 bytes each
        #expect(
            try GIFDecoder().decode(gif, limits: DecodingLimits(maxDecodedBytes: 4000, maxFrames: 2)).frames.count == 2)
        #expect(
            throws: TroveError.tooLargeToDecode(needed: 5760, limit: 4000, setting: "DecodingLimits.maxDecodedBytes")
        ) {
            try GIFDecoder().decode(gif, limits: DecodingLimits(maxDecodedBytes: 4000, maxFrames: 3))
        }
    }

    @Test func damagedBytesNeverCrash() throws {
        var damager = ByteDamager(seed: 0x2545_F491_4F6C_DD1D)
        var thrown = 0
        for name in ["still", "animated", "interlaced", "pillow"] {
            let original = [UInt8](try Fixtures.gif(name))
            for _ in 0..<200 {
                let bytes = damager.damaged(original)
                do {
                    let image = try GIFDecoder().decode(Data(bytes), limits: DecodingLimits(maxPixels: 1 << 20))
                    #expect(image.pixels.count == image.width * image.height * 4)
                } catch is TroveError {
                    thrown += 1
                }
            }
        }
        #expect(thrown > 0)
    }
}
