/// The text of a PNG's tEXt, zTXt and iTXt chunks, found by keyword (PNG specification 11.3.3).
enum PNGTextChunks {
    static let text: UInt32 = 0x7445_5874
    static let compressedText: UInt32 = 0x7A54_5874
    static let internationalText: UInt32 = 0x6954_5874
    /// The text of the chunk of type `type` with data `body` (indexed from 0) when its keyword is `keyword`; nil
    /// for another keyword or chunk type, an unknown compression method, or a damaged stream. tEXt: keyword, NUL,
    /// text. zTXt: keyword, NUL, method 0, a zlib stream. iTXt: keyword, NUL, compression flag and method,
    /// language tag, NUL, translated keyword, NUL, then the text (a zlib stream when the flag is 1). A compressed
    /// text that inflates past `limit` bytes is left out.
    static func text(ofChunk type: UInt32, _ body: UnsafeRawBufferPointer, keyword: String, limit: Int) -> [UInt8]? {
        let prefix = Array(keyword.utf8) + [0]
        guard body.starts(with: prefix) else { return nil }
        var at = prefix.count
        let compressed: Bool
        switch type {
        case text:
            compressed = false
        case compressedText:
            guard at < body.count, body[at] == 0 else { return nil }
            compressed = true
            at += 1
        case internationalText:
            guard at + 2 <= body.count, body[at] <= 1, body[at] == 0 || body[at + 1] == 0 else { return nil }
            compressed = body[at] == 1
            at += 2
            for _ in 0..<2 {
                guard let nul = body[at...].firstIndex(of: 0) else { return nil }
                at = nul + 1
            }
        default:
            return nil
        }
        guard compressed else { return Array(body[at...]) }
        return ZlibInflater.inflated(body, range: at..<body.count, limit: limit)
    }
}
