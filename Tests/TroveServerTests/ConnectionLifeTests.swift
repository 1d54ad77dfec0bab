import Foundation
import Testing
import TroveTestSupport

/// A connection's life around its answers: time counts from completed writes, so a large answer to a slow
/// reader is never cut by the keep-alive timeout, whichever way it was answered; a client that reads nothing
/// is closed after the write timeout and its buffers let go; a client that half-closes after its request
/// gets its whole answer; a head the decoder refuses gets only the refusal.
@Suite struct ConnectionLifeTests {
    /// How a hit reaches its answer: from the request's bytes, after NIO's decoder (the connection's first
    /// request was not plain, so its decoder may hold bytes), or through the router (it asks to close).
    enum HitPath: String, CaseIterable, CustomTestStringConvertible {
        case fromBytes, afterDecoder, router
        var testDescription: String { rawValue }
    }

    /// A 6 MB hit read at 100 KiB/s through a small receive buffer for twice the keep-alive timeout, then
    /// the rest at full speed: the timeout counts from the last byte written, not from when the answer was
    /// queued, so the body comes whole (it used to be cut when the timeout ran out).
    @Test(arguments: HitPath.allCases)
    func aLargeHitToASlowReaderArrivesWholePastTheKeepAliveTimeout(path: HitPath) async throws {
        let large = try await LargeResult.start { $0.keepAliveTimeout = .seconds(1) }
        defer { Task { await large.harness.stop() } }
        let connection = try RawConnection(port: large.harness.port, receiveBuffer: 4096)
        if path == .afterDecoder {
            try connection.send("GET /health HTTP/1.1\r\nHost: trove.test\r\nContent-Length: 0\r\n\r\n")
            #expect(try await connection.readAnswers([true]).first?.statusLine == "HTTP/1.1 200 OK")
        }
        try connection.send(large.request(close: path == .router))
        let start = await connection.readSlowly(bytesPerSecond: 100 << 10, for: .seconds(2))
        #expect(start.count < large.body.count / 4, "the slow part read \(start.count) bytes")
        let answer = try await connection.readAnswer(startingWith: start, within: .seconds(60))
        #expect(answer.statusLine == "HTTP/1.1 200 OK")
        #expect(answer.body.count == large.body.count && Data(answer.body) == large.body)
        let harness = large.harness
        #expect(try await harness.metric("trove_serve_express_hits_total") == (path == .fromBytes ? 1 : 0))
        #expect(try await harness.metric("trove_serve_event_loop_hits_total") == (path == .router ? 0 : 1))
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 1)
    }

    /// A client asks twice, one request a write, and reads nothing: the first answer fills its socket and the
    /// second waits at the router behind it. After the write timeout the connection is closed, counted, and
    /// the bytes waiting for it are let go; what the client then reads ends short of its answers.
    @Test func aClientThatReadsNothingIsClosedAfterTheWriteTimeoutAndItsBuffersLetGo() async throws {
        let large = try await LargeResult.start { $0.writeTimeout = .seconds(1) }
        defer { Task { await large.harness.stop() } }
        let harness = large.harness
        let connection = try RawConnection(port: harness.port, receiveBuffer: 4096)
        try connection.send(large.request())
        #expect(try await eventually { try await harness.metric("trove_serve_express_hits_total") == 1 })
        try connection.send(large.request())
        #expect(
            try await eventually(within: .seconds(30)) {
                try await harness.metric("trove_serve_write_timeouts_total") == 1
            })
        #expect(try await eventually { try await harness.metric("trove_serve_unwritten_bytes") == 0 })
        let (bytes, closed) = await connection.readBytes(forAtMost: .seconds(20))
        #expect(closed && bytes.count < 2 * large.body.count, "read \(bytes.count) bytes")
        // The second request went to the router, which asked the cache itself: each was asked once.
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 2)
    }

    /// A client sends its request and half-closes at once, then reads slowly: every answer queued before the
    /// half-close is written in full before the connection closes, from its bytes or from the router (where
    /// the client also asked to close).
    @Test(arguments: [HitPath.fromBytes, .router])
    func aClientThatHalfClosesAfterItsRequestGetsItsWholeAnswer(path: HitPath) async throws {
        let large = try await LargeResult.start()
        defer { Task { await large.harness.stop() } }
        let connection = try RawConnection(port: large.harness.port, receiveBuffer: 4096)
        try connection.send(large.request(close: path == .router))
        connection.shutdownWrite()
        let start = await connection.readSlowly(bytesPerSecond: 100 << 10, for: .milliseconds(500))
        let answer = try await connection.readAnswer(startingWith: start, within: .seconds(60))
        #expect(answer.body.count == large.body.count && Data(answer.body) == large.body)
        let rest = await connection.readBytes(forAtMost: .seconds(10))
        #expect(rest.closed && rest.bytes.isEmpty, "then the close: \(rest)")
    }

    /// A hit whose head NIO's decoder refuses (llhttp takes no `Transfer-Encoding` but chunked) is not
    /// answered from the cache before the refusal: the client gets the 400 alone, and the connection closes.
    @Test func aHitWhoseHeadTheDecoderRefusesGetsOnlyThe400() async throws {
        let harness = try await ImageURLTests.startSigned()
        defer { Task { await harness.stop() } }
        let hit = URLSigner.test.signed("/rs:fit:30:30/plain/\(harness.origin.url("/images/chelsea.png"))@png")
        #expect(try await harness.request(hit).status == .ok)

        let connection = try RawConnection(port: harness.port)
        try connection.send("GET \(hit) HTTP/1.1\r\nHost: trove.test\r\nTransfer-Encoding: xchunked\r\n\r\n")
        let (bytes, closed) = await connection.readBytes(forAtMost: .seconds(10))
        let (answer, length) = try #require(WireAnswer.parse(bytes[...], hasBody: true))
        #expect(answer.statusLine == "HTTP/1.1 400 Bad Request" && answer.body.isEmpty)
        #expect(length == bytes.count && closed, "nothing after the 400: \(String(decoding: bytes, as: UTF8.self))")
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 0)
        #expect(try await harness.metric("trove_serve_event_loop_hits_total") == 0)
    }
}
