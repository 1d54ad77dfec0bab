import Foundation
import HTTPTypes
import Testing

/// A request asks the result cache once, whichever way it goes: a miss read from its bytes, one read by
/// NIO's decoder, and one that goes straight to the router are each one lookup (the router does not ask
/// again for a request the connection handler asked for), and the mark that tells the router so is the
/// server's own: a client that sends it is still looked up.
@Suite struct ResultLookupTests {
    @Test func eachRequestAsksTheResultCacheOnce() async throws {
        let harness = try await ImageURLTests.startSigned()
        defer { Task { await harness.stop() } }
        let source = harness.origin.url("/images/chelsea.png")
        let paths = (0..<3).map { URLSigner.test.signed("/rs:fit:\(20 + $0):0/plain/\(source)@png") }
        func lookups() -> Int {
            let stats = harness.server.resultCacheStats
            return (stats?.hits ?? 0) + (stats?.misses ?? 0)
        }

        // From its bytes.
        let plain = try RawConnection(port: harness.port)
        var before = lookups()
        #expect(try await plain.exchange(paths[0]).statusLine == "HTTP/1.1 200 OK")
        #expect(lookups() - before == 1)

        // After the decoder: the connection's first request was not plain, so the decoder may hold bytes.
        let decoded = try RawConnection(port: harness.port)
        try decoded.send("GET /health HTTP/1.1\r\nHost: trove.test\r\nContent-Length: 0\r\n\r\n")
        #expect(try await decoded.readAnswers([true]).first?.statusLine == "HTTP/1.1 200 OK")
        before = lookups()
        #expect(try await decoded.exchange(paths[1]).statusLine == "HTTP/1.1 200 OK")
        #expect(lookups() - before == 1)

        // Straight to the router: it asks to close, with the server's mark of a request already asked for.
        for (path, expectedHits) in [(paths[2], 0), (paths[0], 1)] {
            let closing = try RawConnection(port: harness.port)
            before = lookups()
            let hitsBefore = harness.server.resultCacheStats?.hits ?? 0
            try closing.send(
                "GET \(path) HTTP/1.1\r\nHost: trove.test\r\nConnection: close\r\ntrove-result-missed: 1\r\n\r\n")
            #expect(try await closing.readAnswers([true]).first?.statusLine == "HTTP/1.1 200 OK")
            #expect(lookups() - before == 1)
            #expect((harness.server.resultCacheStats?.hits ?? 0) - hitsBefore == expectedHits)
        }
    }
}
