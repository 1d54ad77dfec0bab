import NIOCore

/// One RESP2 reply from a Redis server.
///
/// Null bulk strings and null arrays are kept apart from empty ones (`$-1` is not `$0`), because a
/// missing key (`GET` → null) is not an empty value.
package enum RESPValue: Sendable, Equatable {
    /// `+OK`: a short status line.
    case simpleString(String)
    /// `-ERR ...`: the server refused the command; the string is the whole line (`"WRONGPASS invalid ..."`).
    case error(String)
    /// `:42`.
    case integer(Int64)
    /// `$5 hello` (binary-safe); nil for the null bulk string `$-1`.
    case bulkString(ByteBuffer?)
    /// `*2 ...`; nil for the null array `*-1`.
    case array([RESPValue]?)

    /// A bulk string holding `bytes`.
    package static func bulk(_ bytes: some Collection<UInt8>) -> RESPValue {
        .bulkString(ByteBuffer(bytes: bytes))
    }

    /// A bulk string holding the UTF-8 of `string`.
    package static func bulk(_ string: String) -> RESPValue {
        .bulkString(ByteBuffer(string: string))
    }

    /// The text of a simple string, or a bulk string read as UTF-8; nil for anything else.
    package var string: String? {
        switch self {
        case let .simpleString(text): text
        case let .bulkString(buffer?): String(buffer: buffer)
        default: nil
        }
    }

    /// The bytes of a bulk string (or a simple string's UTF-8); nil for nulls and other kinds.
    package var bytes: [UInt8]? {
        switch self {
        case let .simpleString(text): Array(text.utf8)
        case let .bulkString(buffer?): Array(buffer.readableBytesView)
        default: nil
        }
    }

    /// Whether this is the null bulk string or the null array.
    package var isNull: Bool {
        switch self {
        case .bulkString(nil), .array(nil): true
        default: false
        }
    }

    /// The server's message when this is an error reply.
    package var errorMessage: String? {
        if case let .error(message) = self { message } else { nil }
    }
}
