import Testing

@testable import TroveServer

/// `PlainRequestHead` reads only one whole, plain GET or HEAD: every other shape is nil, so it goes to NIO's
/// decoder, which either reads it the same way or refuses it.
@Suite struct PlainRequestHeadTests {
    static func read(_ text: String) -> PlainRequestHead? {
        Array(text.utf8).withUnsafeBytes { PlainRequestHead($0) }
    }

    @Test func aPlainGetKeepsTheTargetAndTheFieldsAnAnswerReads() throws {
        let head = try #require(
            Self.read(
                "GET /sig/rs:fit:300:300/plain/http%3A%2F%2Fa%2Fb.jpg?x=1 HTTP/1.1\r\nHost: example.com\r\n"
                    + "ACCEPT:image/webp,*/*  \r\nIf-None-Match: \"abc\"\r\n"
                    + "if-modified-since: Sun, 29 Nov 2026 10:00:00 GMT\r\n"
                    + "User-Agent: Mozilla/5.0 (X11; Linux) caf\u{E9}\r\nSec-CH-DPR: 2\r\nDPR: 3\r\n"
                    + "Sec-CH-Width: 600\r\nWidth: 700\r\nConnection: Keep-Alive\r\n\r\n"))
        #expect(!head.isHead && head.target == "/sig/rs:fit:300:300/plain/http%3A%2F%2Fa%2Fb.jpg?x=1")
        #expect(head.accept == "image/webp,*/*" && head.ifNoneMatch == "\"abc\"")
        #expect(head.ifModifiedSince == "Sun, 29 Nov 2026 10:00:00 GMT")
        #expect(head.secCHDPR == "2" && head.dpr == "3" && head.secCHWidth == "600" && head.width == "700")
    }

    @Test func aHeadRequestWithRepeatedFieldsJoinsThemAsNIODoes() throws {
        let head = try #require(
            Self.read("HEAD /a HTTP/1.1\r\nAccept: image/avif\r\nHost: h\r\naccept:\timage/webp\r\nX-Empty:\r\n\r\n"))
        #expect(head.isHead && head.target == "/a")
        #expect(head.accept == "image/avif, image/webp")
        #expect(head.ifNoneMatch == nil && head.secCHDPR == nil)
    }

    /// Each of these is refused by the decoder, read differently by it, or needs more than a head; each
    /// reads as nil here. The first is the plain request the others change.
    @Test(arguments: [
        ("another method", "POST /a HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a lower-case method", "get /a HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("HTTP/1.0", "GET /a HTTP/1.0\r\nHost: h\r\n\r\n"),
        ("HTTP/2's preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        ("an absolute-form target", "GET http://h/a HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a control byte in the target", "GET /a\u{1}b HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("two spaces before the version", "GET /a  HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a body's length", "GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"),
        ("a chunked body", "GET /a HTTP/1.1\r\nHost: h\r\ntransfer-encoding: chunked\r\n\r\n"),
        ("a close", "GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"),
        ("a close among options", "GET /a HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, close\r\n\r\n"),
        ("an upgrade", "GET /a HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n"),
        ("an expectation", "GET /a HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n"),
        ("a folded field", "GET /a HTTP/1.1\r\nHost: h\r\nAccept: image/png\r\n image/webp\r\n\r\n"),
        ("a space before the colon", "GET /a HTTP/1.1\r\nHost : h\r\n\r\n"),
        ("a name that is not a token", "GET /a HTTP/1.1\r\nHo(st: h\r\n\r\n"),
        ("a field without a colon", "GET /a HTTP/1.1\r\nHost\r\n\r\n"),
        ("a bare line feed", "GET /a HTTP/1.1\nHost: h\r\n\r\n"),
        ("a bare line feed in a value", "GET /a HTTP/1.1\r\nHost: h\nX: y\r\n\r\n"),
        ("a bare carriage return in a value", "GET /a HTTP/1.1\r\nHost: h\rX: y\r\n\r\n"),
        ("a NUL in a value", "GET /a HTTP/1.1\r\nHost: h\u{0}\r\n\r\n"),
        ("a DEL in a value", "GET /a HTTP/1.1\r\nHost: h\u{7F}\r\n\r\n"),
        ("a head not yet ended", "GET /a HTTP/1.1\r\nHost: h\r\n"),
        ("a request line not yet ended", "GET /a HTTP/1"),
        ("a second request after it", "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("bytes after it", "GET /a HTTP/1.1\r\nHost: h\r\n\r\nx"),
        ("nothing", "")
    ])
    func anythingButOneWholePlainRequestIsNotRead(shape: String, text: String) {
        #expect(Self.read(text) == nil, "\(shape)")
    }

    @Test func theMinimalPlainRequestReads() {
        #expect(Self.read("GET / HTTP/1.1\r\n\r\n")?.target == "/")
    }

    @Test func headsPastTheirLimitsGoToTheDecoder() {
        let many = (0..<PlainRequestHead.maximumFieldCount).map { "X-\($0): v\r\n" }.joined()
        #expect(Self.read("GET /a HTTP/1.1\r\n\(many)\r\n") != nil)
        #expect(Self.read("GET /a HTTP/1.1\r\n\(many)X-One-More: v\r\n\r\n") == nil)
        let start = "GET /a HTTP/1.1\r\nX-Long: "
        let fill = PlainRequestHead.maximumLength - start.utf8.count - 4
        #expect(Self.read(start + String(repeating: "v", count: fill) + "\r\n\r\n") != nil)
        #expect(Self.read(start + String(repeating: "v", count: fill + 1) + "\r\n\r\n") == nil)
    }
}
