import Foundation
import Testing
import TroveCodec

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
}
