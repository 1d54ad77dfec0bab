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

    /// What the result costs in the result cache: its bytes, and about what its headers (in both forms, for
    /// both answers) and strings hold.
    var cost: Int { body.readableBytes + 2048 }
}
