import CZlib
import Foundation
import Testing
import TroveCodec
import TroveCore

@Suite struct ZlibCompressorTests {
    let zlib = ZlibCompressor()

    static func randomBytes(_ count: Int, seed: UInt64) -> Data {
        var state = seed
        return Data(
            (0..<count).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
    }

    static let text = Data(
        String(
            repeating: "The quick brown fox jumps over the lazy dog. 0123456789\n",
            count: 400
        ).utf8)

    @Test func identity() {
        #expect(zlib.name == "zlib")
        #expect(zlib.id == 1)
    }

    @Test(arguments: [0, 1, 1000, 100_000])
    func randomDataRoundTrips(count: Int) throws {
        let data = Self.randomBytes(count, seed: UInt64(count) + 7)
        let packed = try zlib.compress(data, level: nil)
        #expect(try zlib.decompress(packed, originalLength: data.count) == data)
    }

    @Test(arguments: [0, 1, 6, 9])
    func textRoundTripsAndShrinksAtEveryCompressingLevel(level: Int) throws {
        let packed = try zlib.compress(Self.text, level: level)
        #expect(try zlib.decompress(packed, originalLength: Self.text.count) == Self.text)
        if level > 0 { #expect(packed.count < Self.text.count / 10) }
    }

    /// Entries are written by libdeflate and PNGs streamed through zlib: each must read the other's streams,
    /// so entries written before the switch and files from anywhere else still read.
    @Test(arguments: [0, 1, 6, 9])
    func zlibAndLibdeflateReadEachOther(level: Int) throws {
        let data = Self.text + Self.randomBytes(50_000, seed: 3) + Self.text
        let ours = try zlib.compress(data, level: level)
        var unpacked = [UInt8](repeating: 0, count: data.count)
        var unpackedCount = uLongf(data.count)
        let status = ours.withUnsafeBytes { input in
            uncompress(&unpacked, &unpackedCount, input.bindMemory(to: Bytef.self).baseAddress, uLong(ours.count))
        }
        #expect(status == Z_OK && Int(unpackedCount) == data.count && Data(unpacked) == data)

        var theirs = [UInt8](repeating: 0, count: Int(compressBound(uLong(data.count))))
        var theirsCount = uLongf(theirs.count)
        let packed = data.withUnsafeBytes { input in
            compress2(
                &theirs, &theirsCount, input.bindMemory(to: Bytef.self).baseAddress, uLong(data.count), Int32(level))
        }
        #expect(packed == Z_OK)
        #expect(try zlib.decompress(Data(theirs.prefix(Int(theirsCount))), originalLength: data.count) == data)
    }

    @Test func levelZeroStoresWithoutShrinking() throws {
        #expect(try zlib.compress(Self.text, level: 0).count > Self.text.count)
    }

    @Test func defaultLevelIsUsedWhenLevelIsNil() throws {
        let fast = ZlibCompressor(defaultLevel: 1)
        #expect(try fast.compress(Self.text, level: nil) == (try fast.compress(Self.text, level: 1)))
        #expect(try zlib.compress(Self.text, level: nil) == (try zlib.compress(Self.text, level: 6)))
    }

    @Test func outOfRangeLevelIsRefused() {
        #expect(throws: TroveError.invalidConfiguration("zlib compression level 12 is out of range 0...9")) {
            try zlib.compress(Self.text, level: 12)
        }
    }

    @Test func wrongOriginalLengthThrows() throws {
        let packed = try zlib.compress(Self.text, level: 6)
        for length in [Self.text.count - 1, Self.text.count + 1, 0] {
            let error = try #require(throws: TroveError.self) { try zlib.decompress(packed, originalLength: length) }
            guard case .decompressionFailed(compressor: "zlib", let reason) = error else {
                Issue.record("unexpected error \(error)"); continue
            }
            #expect(reason.contains("\(length)"))
        }
    }

    @Test func corruptStreamThrows() throws {
        var packed = try zlib.compress(Self.text, level: 6)
        packed[packed.count / 2] ^= 0xFF
        let error = try #require(throws: TroveError.self) {
            try zlib.decompress(packed, originalLength: Self.text.count)
        }
        guard case .decompressionFailed(compressor: "zlib", let reason) = error else {
            Issue.record("unexpected error \(error)"); return
        }
        #expect(reason.contains("corrupt") || reason.contains("truncated") || reason.contains("bytes"))
    }

    @Test func damagedChecksumIsDetected() throws {
        var packed = try zlib.compress(Self.text, level: 6)
        packed[packed.count - 1] ^= 0x01  // last byte of the Adler-32 trailer
        let error = try #require(throws: TroveError.self) {
            try zlib.decompress(packed, originalLength: Self.text.count)
        }
        guard case .decompressionFailed(_, let reason) = error else { Issue.record("unexpected \(error)"); return }
        #expect(reason.contains("incorrect data check"))
    }

    @Test func truncatedStreamThrows() throws {
        let packed = try zlib.compress(Self.text, level: 6)
        let error = try #require(throws: TroveError.self) {
            try zlib.decompress(packed.prefix(packed.count / 2), originalLength: Self.text.count)
        }
        guard case .decompressionFailed(_, let reason) = error else { Issue.record("unexpected \(error)"); return }
        #expect(reason.contains("ends early"))
    }

    @Test func notZlibAtAllThrows() {
        #expect(throws: TroveError.self) { try zlib.decompress(Self.text, originalLength: 10) }
        #expect(throws: TroveError.self) { try zlib.decompress(Data(), originalLength: 0) }
    }

    @Test func impossibleOriginalLengthIsRefusedBeforeAllocating() throws {
        let packed = try zlib.compress(Data("abc".utf8), level: 6)
        let error = try #require(throws: TroveError.self) { try zlib.decompress(packed, originalLength: 1 << 40) }
        guard case .decompressionFailed(_, let reason) = error else { Issue.record("unexpected \(error)"); return }
        #expect(reason.contains("impossible"))
    }
}
