import Testing
import TroveSupport

@Suite struct HexEncodingTests {
    @Test func twoLowercaseDigitsPerByteInOrder() {
        #expect(HexEncoding.lowercase([0x00, 0x01, 0x7F, 0x80, 0xAB, 0xFF]) == "00017f80abff")
        #expect(HexEncoding.lowercase([UInt8]()) == "")
    }

    @Test func everyByteRoundTrips() {
        let bytes = (0...255).map { UInt8($0) }
        let text = HexEncoding.lowercase(bytes)
        #expect(text.utf8.count == 512)
        let pairs = stride(from: 0, to: 512, by: 2).map { offset -> UInt8 in
            let start = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
            return UInt8(String(text[start..<text.utf8.index(start, offsetBy: 2)]), radix: 16)!
        }
        #expect(pairs == bytes)
    }
}
