import Hummingbird

/// An encoded result as the server sends it: the bytes in the buffer the response writes, its strong
/// ETag and media type, made once when the result is produced, so a cache hit copies and hashes nothing.
struct ServedResult: Sendable {
    let body: ByteBuffer
    let entityTag: String
    let contentType: String

    /// What the result costs in the result cache: its bytes and a little for the rest.
    var cost: Int { body.readableBytes + 256 }
}
