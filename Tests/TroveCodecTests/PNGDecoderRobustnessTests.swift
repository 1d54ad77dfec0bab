import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveSupport
import TroveTestSupport

/// Damage inside chunk data, with the CRC recomputed so the damage reaches the parser, filters and
/// inflater: the decoder must throw a TroveError or return a whole image, and never crash.
@Suite struct PNGDecoderRobustnessTests {
    struct Chunk { let start: Int; let length: Int }

    static func chunks(of png: [UInt8]) -> [Chunk] {
        var result: [Chunk] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            result.append(Chunk(start: offset, length: length))
            offset += 12 + length
        }
        return result
    }

    static func fixCRC(_ png: inout [UInt8], _ chunk: Chunk) {
        let crc = png[(chunk.start + 4)..<(chunk.start + 8 + chunk.length)].withUnsafeBytes { CRC32.checksum($0) }
        let at = chunk.start + 8 + chunk.length
        for i in 0..<4 { png[at + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
    }

    @Test(arguments: ["basn2c08", "basi0g04", "basn3p02", "basi6a16", "tbbn3p08", "s09i3p02"])
    func damagedChunkDataNeverCrashes(name: String) throws {
        let original = [UInt8](try Fixtures.pngSuite(name))
        let targets = Self.chunks(of: original).filter { $0.length > 0 }
        var damager = ByteDamager(
            seed: 0x9E37_79B9_7F4A_7C15 &+ UInt64(name.utf8.reduce(0) { $0 &* 31 &+ Int($1) } & 0xFFFF))
        var thrown = 0, decoded = 0
        for _ in 0..<300 {
            let chunk = targets[damager.random(targets.count)]
            var png = damager.damaged(original, flips: 3, in: (chunk.start + 8)..<(chunk.start + 8 + chunk.length))
            Self.fixCRC(&png, chunk)
            do {
                let image = try PNGDecoder().decode(Data(png), limits: DecodingLimits(maxPixels: 1 << 20))
                #expect(image.pixels.count == image.width * image.height * 4)
                decoded += 1
            } catch is TroveError {
                thrown += 1
            }
        }
        #expect(thrown + decoded == 300)
        #expect(thrown > 0)  // some damage (IHDR fields, the zlib stream) must be detected
    }
}
