import Hummingbird
import NIOCore
import NIOHTTP1

/// The answer to a request for a kept result, before it is sent: a Hummingbird `Response` on the router's
/// path, NIO's HTTP parts when `ConnectionHandler` answers a hit after the decoder, bytes when it answers one
/// from the client's bytes. One function makes it for all three (`ProxyResponder.answer`), so they cannot
/// differ.
struct ResultAnswer {
    var status: HTTPResponse.Status
    var headers: AnswerFields
    /// Nil for `304 Not Modified` and for HEAD.
    var body: ByteBuffer?
    /// The `Content-Length` header's value, nil when there is none (a 304).
    var contentLength: String?

    var response: Response {
        Response(
            status: status, headers: headers.fields, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }

    /// The head as NIO's encoder writes it, with `Date` added last, as Hummingbird adds it.
    func responseHead(date: String) -> HTTPResponseHead {
        var fields = headers.http1
        fields.add(name: "Date", value: date)
        return HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: Int(status.code)), headers: fields)
    }

    /// The bytes NIO's encoder writes for `responseHead(date:)`: the status line, the fields in order, `Date`
    /// and the blank line.
    func writeHead(date: String, into buffer: inout ByteBuffer) {
        let status = HTTPResponseStatus(statusCode: Int(self.status.code))
        buffer.writeString("HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n")
        buffer.writeBytes(headers.wire)
        buffer.writeString("Date: \(date)\r\n\r\n")
    }
}

/// The request headers that can turn a kept result's answer into `304 Not Modified`.
struct AnswerConditions {
    var ifNoneMatch: String?
    var ifModifiedSince: String?

    init(ifNoneMatch: String?, ifModifiedSince: String?) {
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }

    init(_ headers: HTTPFields) {
        ifNoneMatch = headers[.ifNoneMatch]
        ifModifiedSince = headers[.ifModifiedSince]
    }

    init(_ headers: HTTPHeaders) {
        ifNoneMatch = headers.combinedValue(named: "if-none-match")
        ifModifiedSince = headers.combinedValue(named: "if-modified-since")
    }
}

extension HTTPHeaders {
    /// A field's values joined with ", ", as `HTTPFields` joins repeated fields (so both paths read the same
    /// text), or nil when it was not sent.
    func combinedValue(named name: String) -> String? {
        let values = self[name]
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}

/// The headers of a kept result's answers, made once when the result is made: each in Hummingbird's form
/// (the router's path), NIO's and as bytes (`ConnectionHandler`'s two ways); the last two add only `Date`.
struct AnswerHeaders: Sendable {
    /// With the body's `Content-Type`, `Content-Length` and `Content-Disposition`.
    let ok: AnswerFields
    /// Without them, for `304 Not Modified`.
    let notModified: AnswerFields

    init(ok: HTTPFields, notModified: HTTPFields) {
        self.ok = AnswerFields(ok)
        self.notModified = AnswerFields(notModified)
    }
}

/// One answer's headers in each form.
struct AnswerFields: Sendable {
    let fields: HTTPFields
    let http1: HTTPHeaders
    /// "name: value" lines, each ending in CRLF, as NIO's encoder writes `http1`.
    let wire: [UInt8]

    init(_ fields: HTTPFields) {
        self.fields = fields
        var http1 = HTTPHeaders()
        http1.reserveCapacity(fields.count + 1)
        var wire: [UInt8] = []
        for field in fields {
            http1.add(name: field.name.rawName, value: field.value)
            wire += Array("\(field.name.rawName): \(field.value)\r\n".utf8)
        }
        self.http1 = http1
        self.wire = wire
    }
}
