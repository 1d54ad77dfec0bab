import Hummingbird

/// An encoded result as the server sends it: the bytes in the buffer the response writes, its strong
/// ETag and media type, made once when the result is produced, so a cache hit copies and hashes nothing.
struct ServedResult: Sendable {
    let body: ByteBuffer
    let entityTag: String
    let contentType: String
    /// The body's length, as the header says it.
    let contentLength: String
    /// Whether the format was negotiated (the answer varies by `Accept`).
    let varies: Bool
    /// `inline` or `attachment`, with the file name (imgproxy's `filename` and `return_attachment`).
    let contentDisposition: String?
    /// The source's caching headers as recorded when the result was made, for `--use-last-modified` and
    /// `--cache-control-passthrough`; nil when neither is on or the source was not fetched since the start.
    let source: SourceHeaders.Entry?
    /// Its answers' headers as the server's settings make them, set when it is packed; nil until then.
    var answerHeaders: AnswerHeaders?

    init(
        body: ByteBuffer, entityTag: String, contentType: String, varies: Bool, contentDisposition: String? = nil,
        source: SourceHeaders.Entry? = nil
    ) {
        self.source = source
        self.body = body
        self.entityTag = entityTag
        self.contentType = contentType
        self.varies = varies
        self.contentDisposition = contentDisposition
        contentLength = String(body.readableBytes)
    }

    /// What the result costs in the result cache under `key`: its buffer as allocated (NIO rounds a buffer
    /// up to a power of two, so a 33 KB result holds 64 KB), the strings, both answers' headers in their
    /// three forms, and the entry's bookkeeping.
    func cost(underKey key: String) -> Int {
        var total = body.capacity + key.utf8.count + entityTag.utf8.count + contentType.utf8.count
        total += (contentDisposition?.utf8.count ?? 0) + Self.entryOverhead
        if let answerHeaders {
            let fields = answerHeaders.ok.fields.count + answerHeaders.notModified.fields.count
            let text = answerHeaders.ok.wire.count + answerHeaders.notModified.wire.count
            total += 3 * text + fields * Self.fieldOverhead
        }
        return total
    }

    /// The struct, its boxes and the cache's slot for one entry. Measured with glibc's malloc: 5,000 results
    /// with eleven header fields held 3.1 KB each beyond their bodies' buffers; this counts about 3.15 KB.
    static let entryOverhead = 700
    /// What one header field costs in its three forms beyond its text: string and array headers.
    static let fieldOverhead = 160
}
