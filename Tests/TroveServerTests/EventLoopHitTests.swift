import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// Result-cache hits are answered on the event loop, ahead of Hummingbird's router: from the request's
/// bytes when a read holds one plain request, else after NIO's decoder (`ConnectionHandler`'s two ways).
/// Either way byte for byte as the router answers, after any request still being answered on the
/// connection, and counted and logged like every other answer.
@Suite struct EventLoopHitTests {
    static let signer = URLSigner.test

    /// The same requests to a server that keeps results and to one that keeps none (every answer made by the
    /// router): the same status lines, headers in the same order, and bodies. The kept server is asked on a
    /// fresh connection, where each hit is read from its bytes, and on one that first sent two requests in one
    /// write, after which hits go through NIO's decoder.
    @Test func hitsAnsweredOnTheEventLoopMatchTheRoutersAnswers() async throws {
        let kept = try await ImageURLTests.startSigned()
        defer { Task { await kept.stop() } }
        let unkept = try await ImageURLTests.startSigned { $0.resultCache = false }
        defer { Task { await unkept.stop() } }
        let named = Self.signer.signed("/rs:fit:30:30/plain/\(kept.origin.url("/images/chelsea.png"))@png")
        let negotiated = Self.signer.signed("/rs:fit:30:30/plain/\(kept.origin.url("/images/chelsea.png"))")
        let unkeptNamed = Self.signer.signed("/rs:fit:30:30/plain/\(unkept.origin.url("/images/chelsea.png"))@png")
        let unkeptNegotiated = Self.signer.signed("/rs:fit:30:30/plain/\(unkept.origin.url("/images/chelsea.png"))")
        // The origins' ports differ, so each server is asked for its own origin's URL; the answers do not
        // carry the URL.
        func exchanges(on connection: RawConnection, named: String, negotiated: String) async throws -> [WireAnswer] {
            let first = try await connection.exchange(named)
            let tag = try #require(first.header("etag"))
            return [
                first,
                try await connection.exchange(named),
                try await connection.exchange(named, method: "HEAD"),
                try await connection.exchange(named, headers: ["If-None-Match": tag]),
                try await connection.exchange(named, headers: ["If-None-Match": "\"other\""]),
                try await connection.exchange(negotiated, headers: ["Accept": "image/webp,*/*"]),
                try await connection.exchange(negotiated, headers: ["Accept": "image/webp,*/*"]),
                try await connection.exchange(negotiated, headers: ["Accept": "image/png"]),
                try await connection.exchange(negotiated, headers: ["Accept": "image/png"])
            ]
        }
        let fromKept = try await exchanges(
            on: RawConnection(port: kept.port), named: named, negotiated: negotiated)
        let fromUnkept = try await exchanges(
            on: RawConnection(port: unkept.port), named: unkeptNamed, negotiated: unkeptNegotiated)
        #expect(fromKept == fromUnkept)
        #expect(
            fromKept.map(\.statusLine) == [
                "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 304 Not Modified", "HTTP/1.1 200 OK",
                "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK"
            ])
        #expect(fromKept[5].header("content-type") == "image/webp" && fromKept[7].header("content-type") == "image/png")
        #expect(fromKept[5].header("vary") == "Accept")
        // Six of the nine were hits: all but the first of each kind, all answered from their bytes.
        #expect(try await kept.metric("trove_serve_event_loop_hits_total") == 6)
        #expect(try await kept.metric("trove_serve_express_hits_total") == 6)
        #expect(try await kept.metric("trove_serve_result_cache_hits_total") == 6)
        #expect(try await kept.metric("trove_serve_requests_total", labels: "status=\"304\"") == 1)
        #expect(try await unkept.metric("trove_serve_event_loop_hits_total") == 0)

        // Two requests in one write: the decoder may hold bytes after such a read, so hits go its way.
        let decoded = try RawConnection(port: kept.port)
        try decoded.send(String(repeating: "GET /health HTTP/1.1\r\nHost: t\r\n\r\n", count: 2))
        #expect(try await decoded.readAnswers([true, true]).map(\.statusLine) == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"])
        // Every exchange is a hit now.
        #expect(try await exchanges(on: decoded, named: named, negotiated: negotiated) == fromUnkept)
        #expect(try await kept.metric("trove_serve_event_loop_hits_total") == 15)
        #expect(try await kept.metric("trove_serve_express_hits_total") == 6)
    }

    /// A hit behind a request whose source is still being fetched is not answered first: it goes the
    /// router's way, in order. Once the connection is idle again, the next hit is answered at once: after
    /// the decoder when the two came pipelined in one write (the decoder may hold bytes after such a read),
    /// from its bytes when each came in its own.
    @Test(arguments: [false, true])
    func aHitBehindARequestStillBeingAnsweredWaitsItsTurn(sentAlone: Bool) async throws {
        let (harness, gate, hit, slow) = try await Self.startWithGatedSource()
        defer { Task { await harness.stop() } }
        let kept = try await harness.request(hit)
        #expect(kept.status == .ok)

        let connection = try RawConnection(port: harness.port)
        if sentAlone {
            try connection.send("GET \(slow) HTTP/1.1\r\nHost: t\r\n\r\n")
            await gate.waitForArrivals(1)
            try connection.send("GET \(hit) HTTP/1.1\r\nHost: t\r\n\r\n")
        } else {
            try connection.send("GET \(slow) HTTP/1.1\r\nHost: t\r\n\r\nGET \(hit) HTTP/1.1\r\nHost: t\r\n\r\n")
            await gate.waitForArrivals(1)
        }
        #expect(await !connection.waitForFirstByte(within: .milliseconds(300)))
        gate.open()
        let answers = try await connection.readAnswers([true, true])
        #expect(answers.map { Self.pngWidth($0.body) } == [20, 30])
        #expect(Data(answers[1].body) == kept.bytes)
        #expect(try await harness.metric("trove_serve_event_loop_hits_total") == 0)
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 1)

        let again = try await connection.exchange(hit)
        #expect(Data(again.body) == kept.bytes)
        #expect(try await harness.metric("trove_serve_event_loop_hits_total") == 1)
        #expect(try await harness.metric("trove_serve_express_hits_total") == (sentAlone ? 1 : 0))
    }

    /// Hits answered from their bytes restart the keep-alive wait when their last byte is written: a
    /// connection that keeps asking stays open past both timeouts, and is closed once it goes quiet.
    @Test func hitsReadFromTheirBytesKeepTheConnectionAliveUntilItIdles() async throws {
        let harness = try await ImageURLTests.startSigned { configuration in
            configuration.headerReadTimeout = .seconds(2)
            configuration.keepAliveTimeout = .seconds(2)
        }
        defer { Task { await harness.stop() } }
        let hit = Self.signer.signed("/rs:fit:30:30/plain/\(harness.origin.url("/images/chelsea.png"))@png")
        let kept = try await harness.request(hit)
        #expect(kept.status == .ok)

        let connection = try RawConnection(port: harness.port)
        // 8 gaps of 400 ms: well past both timeouts in all, well inside the keep-alive wait each.
        for _ in 0..<8 {
            #expect(Data(try await connection.exchange(hit).body) == kept.bytes)
            try await Task.sleep(for: .milliseconds(400))
        }
        #expect(try await harness.metric("trove_serve_express_hits_total") == 8)
        let quiet = await connection.read(forAtMost: .seconds(10))
        #expect(quiet.closed && quiet.text.isEmpty, "\(quiet)")
    }

    /// A hit that asks for the connection to close is answered after the decoder, and the connection closes.
    @Test func aHitThatAsksToCloseIsAnsweredAndClosed() async throws {
        let harness = try await ImageURLTests.startSigned()
        defer { Task { await harness.stop() } }
        let hit = Self.signer.signed("/rs:fit:30:30/plain/\(harness.origin.url("/images/chelsea.png"))@png")
        let kept = try await harness.request(hit)
        #expect(kept.status == .ok)

        let connection = try RawConnection(port: harness.port)
        try connection.send("GET \(hit) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let (bytes, closed) = await connection.readBytes(forAtMost: .seconds(10))
        let answer = try #require(WireAnswer.parse(bytes[...], hasBody: true))
        #expect(closed && answer.0.statusLine == "HTTP/1.1 200 OK" && Data(answer.0.body) == kept.bytes)
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 1)
        #expect(try await harness.metric("trove_serve_express_hits_total") == 0)
    }

    /// A client that asks many times and reads nothing fills its socket; from then on its hits go the
    /// router's way, whose writer waits for the socket to drain, rather than being queued on the event
    /// loop. Read afterwards, every answer comes, whole and in order. Asked all in one write, the hits
    /// before that go through the decoder; asked one request per write, they are read from their bytes.
    @Test(arguments: [false, true])
    func hitsForAClientThatDoesNotReadWaitForItsSocket(onePerWrite: Bool) async throws {
        let harness = try await ImageURLTests.startSigned()
        defer { Task { await harness.stop() } }
        let path = Self.signer.signed("/rs:fit:600:600/plain/\(harness.origin.url("/images/coffee.png"))@png")
        let request = "GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n"
        let kept = try await harness.request(path)
        #expect(kept.status == .ok && kept.bytes.count > 100_000)

        // 60 answers of over 100 KB are far more than the kernel holds for one connection (a few MB).
        let count = 60
        let connection = try RawConnection(port: harness.port, receiveBuffer: 4096)
        let counted: String
        if onePerWrite {
            counted = "trove_serve_express_hits_total"
            var answeredAtOnce = true
            for sent in 1...count {
                try connection.send(request)
                // Each request is looked up before the next is sent (so each is a read of its own), until
                // one waits behind the full socket.
                if answeredAtOnce {
                    answeredAtOnce = try await eventually(within: .seconds(1)) {
                        try await harness.metric("trove_serve_result_cache_hits_total") >= Double(sent)
                    }
                }
            }
        } else {
            counted = "trove_serve_event_loop_hits_total"
            try connection.send(String(repeating: request, count: count))
            // Wait for the loop to start answering, then give it time it would use to answer them all.
            #expect(try await eventually { try await harness.metric(counted) >= 1 })
            try await Task.sleep(for: .seconds(1))
        }
        let answeredOnTheLoop = try await harness.metric(counted)
        #expect(answeredOnTheLoop >= 1 && answeredOnTheLoop < Double(count))

        let answers = try await connection.readAnswers(Array(repeating: true, count: count), within: .seconds(60))
        #expect(answers.count == count)
        #expect(answers.allSatisfy { Data($0.body) == kept.bytes })
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == Double(count))
    }

    /// `trove serve` writes one access line for a hit answered on the event loop, as for the miss before
    /// it: the path without its signature, the status and the length.
    @Test func hitsAnsweredOnTheEventLoopAreLogged() async throws {
        let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
        try await origin.start()
        defer { Task { await origin.stop() } }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("trove-hits-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let log = cache.appendingPathExtension("log")
        defer { try? FileManager.default.removeItem(at: log) }
        let process = try ServeProcess.launch(
            [
                "serve", "--port", "0", "--cache-dir", cache.path, "--allow-loopback-sources",
                "--key", Self.signer.key, "--salt", Self.signer.salt, "--log-level", "info"
            ], standardError: log)
        let port = try await process.port()
        let unsigned = "/rs:fit:30:30/plain/\(origin.url("/images/chelsea.png"))@png"
        let connection = try RawConnection(port: port)
        let answers = [
            try await connection.exchange(Self.signer.signed(unsigned)),
            try await connection.exchange(Self.signer.signed(unsigned))
        ]
        #expect(answers[0] == answers[1])
        let length = try #require(answers[0].header("content-length"))
        let metrics = try await connection.exchange("/metrics")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("trove_serve_event_loop_hits_total 1\n"))
        process.signal(SIGINT)
        #expect(await process.exitStatus() == 0)

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let logged = lines.filter { $0.contains(" GET /-/rs:fit:30:30/plain/") }
        #expect(logged.count == 2, "\(lines)")
        #expect(logged.allSatisfy { $0.contains("/chelsea.png@png 200 \(length) ") })
        #expect(!lines.contains { $0.contains(Self.signer.signed(unsigned).split(separator: "/")[0]) })
    }

    /// A server whose origin holds `gated.png` until `gate` opens, and two signed paths: `hit`, a 30 px PNG
    /// of an image served at once, and `slow`, a 20 px PNG of the gated one.
    static func startWithGatedSource() async throws -> (
        harness: ServerHarness, gate: FixtureGate, hit: String, slow: String
    ) {
        let gate = FixtureGate()
        let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
        let png = try Data(contentsOf: TestImages.folder.appendingPathComponent("chelsea.png"))
        origin.setRoute("/gated.png", .gated(png, contentType: "image/png", gate: gate))
        let harness = try await ServerHarness.start(origin: origin) { configuration in
            configuration.keys = [Self.signer.key]
            configuration.salts = [Self.signer.salt]
        }
        let hit = Self.signer.signed("/rs:fit:30:30/plain/\(origin.url("/images/chelsea.png"))@png")
        let slow = Self.signer.signed("/rs:fit:20:20/plain/\(origin.url("/gated.png"))@png")
        return (harness, gate, hit, slow)
    }

    /// A PNG's width from its IHDR chunk.
    static func pngWidth(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 24 else { return 0 }
        return bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
    }
}
