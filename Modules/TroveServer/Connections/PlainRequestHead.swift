/// A request head read straight from the bytes a client sent, for `ConnectionHandler`. Only the plainest
/// form reads: one whole GET or HEAD over HTTP/1.1, with no body, nothing after its blank line, and only the
/// headers a hit's answer looks at kept. Anything else (another method or version, a body, `Connection` other
/// than keep-alive, an upgrade, a byte a strict reading of RFC 9112 would not take) reads as nil and goes on
/// to NIO's decoder, so this never answers a request that the decoder would refuse or read with another
/// method, target, version, framing or field. Values lose the whitespace around them, as Hummingbird's
/// fields do (NIO's keep what trails).
struct PlainRequestHead {
    /// Heads longer than this, or with more fields, go to the decoder (browsers send well under 2 KiB and
    /// 20 fields; the decoder's own limits are higher).
    static let maximumLength = 8192
    static let maximumFieldCount = 100

    var isHead: Bool
    /// The request target as sent (an origin-form path, with any query).
    var target: String
    var accept: String?
    var ifNoneMatch: String?
    var ifModifiedSince: String?
    /// The client hints' values as sent (`ClientHints` reads them).
    var secCHDPR: String?
    var dpr: String?
    var secCHWidth: String?
    var width: String?
    /// The client's W3C `traceparent`, for the server span of a hit when the process traces.
    var traceparent: String?

    /// Reads `bytes` as one whole plain request head, or nil.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Self.maximumLength else { return nil }
        var reader = ByteReader(bytes)
        if reader.skip("GET ") {
            isHead = false
        } else if reader.skip("HEAD ") {
            isHead = true
        } else {
            return nil
        }
        guard let target = reader.target(), reader.skip(" HTTP/1.1\r\n") else { return nil }
        self.target = target
        var fieldCount = 0
        while !reader.skip("\r\n") {
            fieldCount += 1
            guard fieldCount <= Self.maximumFieldCount, let name = reader.fieldName(), reader.skip(":"),
                let value = reader.fieldValue()
            else { return nil }
            switch name {
            case .accept: accept = Self.joined(accept, value)
            case .ifNoneMatch: ifNoneMatch = Self.joined(ifNoneMatch, value)
            case .ifModifiedSince: ifModifiedSince = Self.joined(ifModifiedSince, value)
            case .secCHDPR: secCHDPR = Self.joined(secCHDPR, value)
            case .dpr: dpr = Self.joined(dpr, value)
            case .secCHWidth: secCHWidth = Self.joined(secCHWidth, value)
            case .width: width = Self.joined(width, value)
            case .traceparent: traceparent = value
            case .connection:
                guard value.lowercased() == "keep-alive" else { return nil }
            case .framing: return nil
            case .other: break
            }
        }
        guard reader.atEnd else { return nil }
    }

    /// Repeated fields joined with ", ", as NIO's and Hummingbird's headers join them.
    private static func joined(_ earlier: String?, _ value: String) -> String {
        earlier.map { $0 + ", " + value } ?? value
    }
}

/// The header names `PlainRequestHead` tells apart; every other name is `other` and its value is skipped.
private enum FieldName {
    case accept, ifNoneMatch, ifModifiedSince, secCHDPR, dpr, secCHWidth, width, connection, traceparent
    /// Fields that mean a body, a protocol switch, an interim answer or (`Proxy-Connection`) a close: such a
    /// request goes to the decoder.
    case framing
    case other

    static let known: [(name: [UInt8], field: FieldName)] =
        ([
            ("accept", .accept), ("if-none-match", .ifNoneMatch), ("if-modified-since", .ifModifiedSince),
            ("sec-ch-dpr", .secCHDPR), ("dpr", .dpr), ("sec-ch-width", .secCHWidth), ("width", .width),
            ("connection", .connection), ("traceparent", .traceparent), ("content-length", .framing),
            ("transfer-encoding", .framing),
            ("upgrade", .framing), ("expect", .framing), ("te", .framing),
            // llhttp reads it as `Connection`.
            ("proxy-connection", .framing)
        ] as [(String, FieldName)]).map { (Array($0.0.utf8), $0.1) }
}

/// A cursor over a request head's bytes.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var atEnd: Bool { index == bytes.count }

    /// Moves past `literal` when the bytes start with it here.
    mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
        index += count
        return true
    }

    /// An origin-form target: "/" and then visible ASCII up to the space before the version.
    mutating func target() -> String? {
        let start = index
        guard index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
        while index < bytes.count, bytes[index] > 0x20, bytes[index] < 0x7F { index += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// A field name of token characters, told apart case-insensitively.
    mutating func fieldName() -> FieldName? {
        let start = index
        while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
        let length = index - start
        guard length > 0 else { return nil }
        for (name, field) in FieldName.known where name.count == length {
            var same = true
            for offset in 0..<length where Self.lowercased(bytes[start + offset]) != name[offset] {
                same = false
                break
            }
            if same { return field }
        }
        return .other
    }

    /// A field's value without the whitespace around it, through its line's CRLF: tabs, visible ASCII and
    /// bytes past ASCII (obs-text), nothing else.
    mutating func fieldValue() -> String? {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        let start = index
        var end = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0D { break }
            guard byte == 0x09 || byte >= 0x20, byte != 0x7F else { return nil }
            index += 1
            if byte != 0x20, byte != 0x09 { end = index }
        }
        guard skip("\r\n") else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// RFC 9110's tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
