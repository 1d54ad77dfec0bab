import CTroveSupport
import Foundation
import Testing
import TroveSupport

@Suite struct CRC32Tests {
    @Test func matchesTheStandardCheckValue() {
        // The published CRC-32 (ISO-HDLC) check value for the ASCII digits 1-9.
        #expect(CRC32.checksum(Data("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func emptyInputGivesTheSeed() {
        #expect(CRC32.checksum(Data()) == 0)
        #expect(CRC32.checksum(Data(), seed: 0x1234) == 0x1234)
    }

    @Test func seedContinuesARunningChecksum() {
        let whole = Data("hello, trove".utf8)
        let first = CRC32.checksum(whole.prefix(5))
        #expect(CRC32.checksum(whole.dropFirst(5), seed: first) == CRC32.checksum(whole))
    }

    @Test func rawBufferAndDataAgree() {
        let bytes: [UInt8] = Array(0...255)
        #expect(bytes.withUnsafeBytes { CRC32.checksum($0) } == CRC32.checksum(Data(bytes)))
    }

    /// Both folding paths (32-byte and 16-byte lanes) against zlib's own tables: every length up to 1,100
    /// (covering each lane threshold and every tail length), long buffers, odd alignments and seeds.
    @Test func foldingPathsMatchZlibExactly() {
        var generator = SystemRandomNumberGenerator()  // a failing case is printed whole, so it can be replayed
        let bytes = (0..<(3 << 20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        var cases: [(offset: Int, length: Int, seed: UInt32)] = (0...1_100).map {
            ($0 % 61, $0, UInt32($0 % 3 == 0 ? 0 : $0))
        }
        for _ in 0..<300 {
            cases.append(
                (
                    Int(generator.next() % 64), Int(generator.next() % UInt64(3 << 20 - 64)),
                    UInt32(truncatingIfNeeded: generator.next())
                ))
        }
        var mismatches: [String] = []
        bytes.withUnsafeBytes { buffer in
            for (offset, length, seed) in cases {
                let start = buffer.baseAddress! + offset
                let expected = trove_crc32_zlib(seed, start, length)
                let wide = trove_crc32(seed, start, length), narrow = trove_crc32_narrow(seed, start, length)
                if wide != expected || narrow != expected {
                    mismatches.append(
                        "offset \(offset) length \(length) seed \(seed): zlib \(expected) wide \(wide) narrow \(narrow)"
                    )
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        // On x86-64 machines with PCLMULQDQ the folding path must really be the one in use.
        #if arch(x86_64)
            #expect(String(cString: trove_crc32_implementation()) != "zlib")
        #endif
    }
}
