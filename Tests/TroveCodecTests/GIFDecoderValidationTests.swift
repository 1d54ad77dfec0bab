import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// Broken, truncated and oversized GIFs are refused with an error that names the problem.
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

    @Test func everyTruncationIsAnError() throws {
        let gif = [UInt8](try Fixtures.gif("animated"))
        for length in 0..<gif.count {
            let message = try #require(reason(Array(gif[0..<length])), "a prefix of \(length) bytes decoded")
            #expect(
                message.contains("truncated") || message.contains("signature"),
                "prefix of \(length) bytes: \(message)")
        }
    }

    @Test func wrongSignature() {
        #expect(reason(Array("GIF88a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B])?.contains("signature") == true)
    }

    @Test func frameWithoutColorTable() {
        // 1x1 screen, no global table, one frame without a local table.
        let bytes: [UInt8] =
            Array("GIF89a".utf8) + [
                1, 0, 1, 0, 0, 0, 0,
                0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0, 0x3B
            ]
        #expect(reason(bytes) == "frame 1 has no color table (neither local nor global)")
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

    @Test func unknownBlock() {
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
