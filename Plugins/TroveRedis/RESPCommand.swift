import NIOCore

/// Writes commands the way every Redis client sends them: an array of bulk strings, so arguments are
/// binary-safe (any byte, including CR, LF and NUL, may appear in a key or value).
enum RESPCommand {
    /// Appends `*<n>\r\n` followed by `$<len>\r\n<bytes>\r\n` for each argument.
    static func encode(_ arguments: [ByteBuffer], into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "*"))
        buffer.writeString(String(arguments.count))
        buffer.writeStaticString("\r\n")
        for argument in arguments {
            buffer.writeInteger(UInt8(ascii: "$"))
            buffer.writeString(String(argument.readableBytes))
            buffer.writeStaticString("\r\n")
            var copy = argument
            buffer.writeBuffer(&copy)
            buffer.writeStaticString("\r\n")
        }
    }

    /// The encoded size of `arguments`, so one allocation holds the whole command.
    static func encodedSize(_ arguments: [ByteBuffer]) -> Int {
        arguments.reduce(16) { $0 + $1.readableBytes + 24 }
    }
}
