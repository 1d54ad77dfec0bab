import NIOCore

/// Reads RESP2 replies out of a growing buffer.
///
/// `parse` either consumes one whole reply or leaves the buffer untouched and returns nil, so bytes
/// may arrive split at any position: the caller appends what comes next and asks again. A partial reply
/// costs only a rescan of its headers; the bulk payloads are never copied until complete.
struct RESPParser {
    /// Longest status, error or length line accepted before the stream is declared broken.
    static let maxLineLength = 64 * 1024
    /// Largest bulk string accepted (Redis' own proto-max-bulk-len default).
    static let maxBulkLength = 512 * 1024 * 1024
    /// Deepest array nesting accepted; Redis replies nest a few levels at most.
    static let maxDepth = 64

    /// The stream is not RESP2 (or is a reply this client never asked for).
    struct ProtocolError: Error, CustomStringConvertible {
        let description: String
    }

    /// One whole reply from the front of `buffer`, consuming it; nil (nothing consumed) when more bytes are needed.
    static func parse(_ buffer: inout ByteBuffer) throws -> RESPValue? {
        var cursor = buffer.readerIndex
        guard let value = try parseValue(buffer, at: &cursor, depth: 0) else { return nil }
        buffer.moveReaderIndex(to: cursor)
        return value
    }

    private static func parseValue(_ buffer: ByteBuffer, at cursor: inout Int, depth: Int) throws -> RESPValue? {
        guard let type = buffer.getInteger(at: cursor, as: UInt8.self) else { return nil }
        guard let line = try lineEnd(buffer, from: cursor + 1) else { return nil }
        let start = cursor + 1
        switch type {
        case UInt8(ascii: "+"):
            cursor = line + 2
            return .simpleString(buffer.getString(at: start, length: line - start) ?? "")
        case UInt8(ascii: "-"):
            cursor = line + 2
            return .error(buffer.getString(at: start, length: line - start) ?? "")
        case UInt8(ascii: ":"):
            cursor = line + 2
            return .integer(try integer(buffer, from: start, to: line))
        case UInt8(ascii: "$"):
            let length = try integer(buffer, from: start, to: line)
            if length == -1 {
                cursor = line + 2
                return .bulkString(nil)
            }
            guard length >= 0, length <= maxBulkLength else {
                throw ProtocolError(description: "bulk string length \(length) out of range")
            }
            let payload = line + 2
            let end = payload + Int(length)
            guard end + 2 <= buffer.writerIndex else { return nil }
            guard buffer.getInteger(at: end, as: UInt16.self) == crlf else {
                throw ProtocolError(description: "bulk string of \(length) bytes not followed by CRLF")
            }
            cursor = end + 2
            return .bulkString(buffer.getSlice(at: payload, length: Int(length)))
        case UInt8(ascii: "*"):
            let count = try integer(buffer, from: start, to: line)
            if count == -1 {
                cursor = line + 2
                return .array(nil)
            }
            guard count >= 0, count <= Int64(maxBulkLength) else {
                throw ProtocolError(description: "array length \(count) out of range")
            }
            guard depth < maxDepth else { throw ProtocolError(description: "arrays nested deeper than \(maxDepth)") }
            var position = line + 2
            var elements: [RESPValue] = []
            // Reserve only what the bytes at hand could hold, so a bogus count cannot allocate gigabytes.
            elements.reserveCapacity(min(Int(count), (buffer.writerIndex - position) / 3 + 1))
            for _ in 0..<count {
                guard let element = try parseValue(buffer, at: &position, depth: depth + 1) else { return nil }
                elements.append(element)
            }
            cursor = position
            return .array(elements)
        default:
            throw ProtocolError(description: "unexpected RESP type byte 0x\(String(type, radix: 16))")
        }
    }

    /// "\r\n" read as one big-endian UInt16.
    private static let crlf: UInt16 = 0x0D0A

    /// The index of the CR that ends the line starting at `start`, or nil when it has not arrived yet.
    private static func lineEnd(_ buffer: ByteBuffer, from start: Int) throws -> Int? {
        let available = buffer.writerIndex - start
        guard available > 0 else { return nil }
        let found: Int? = buffer.withUnsafeReadableBytes { raw in
            let base = start - buffer.readerIndex
            guard let cr = raw[base...].firstIndex(of: UInt8(ascii: "\r")) else { return nil }
            return cr + buffer.readerIndex
        }
        guard let cr = found else {
            if available > maxLineLength { throw ProtocolError(description: "line longer than \(maxLineLength) bytes") }
            return nil
        }
        guard cr + 1 < buffer.writerIndex else { return nil }
        guard buffer.getInteger(at: cr + 1, as: UInt8.self) == UInt8(ascii: "\n") else {
            throw ProtocolError(description: "CR not followed by LF")
        }
        return cr
    }

    /// A decimal integer (optional leading '-') from `start` up to `end`, strictly.
    private static func integer(_ buffer: ByteBuffer, from start: Int, to end: Int) throws -> Int64 {
        guard end > start, end - start <= 20 else { throw ProtocolError(description: "malformed integer") }
        var value: Int64 = 0
        var negative = false
        var index = start
        if buffer.getInteger(at: index, as: UInt8.self) == UInt8(ascii: "-") {
            negative = true
            index += 1
            guard index < end else { throw ProtocolError(description: "malformed integer") }
        }
        while index < end {
            let byte = buffer.getInteger(at: index, as: UInt8.self)!
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw ProtocolError(description: "malformed integer")
            }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { throw ProtocolError(description: "integer overflows 64 bits") }
            value = sum
            index += 1
        }
        return negative ? -value : value
    }
}

/// The NIO side of `RESPParser`: turns the byte stream of a connection into replies.
struct RESPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = RESPValue

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let value = try RESPParser.parse(&buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(value))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        // A reply cut by the close is not delivered; the pending command fails with the closed connection.
        try decode(context: context, buffer: &buffer)
    }
}
