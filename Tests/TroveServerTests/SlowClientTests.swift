import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TroveServer

/// Clients that trickle, idle or crowd: a head not sent in time and an idle keep-alive connection are
/// closed; many trickling clients do not keep others from being answered; past the connection cap new
/// clients wait until one closes; a drain fails `/health` first while requests are still served.
@Suite struct SlowClientTests {
    @Test func aHeadNotSentInTimeIsClosedAndAWholeOneIsAnswered() async throws {
        let harness = try await ServerHarness.start { $0.headerReadTimeout = .milliseconds(300) }
        defer { Task { await harness.stop() } }
        let trickling = try RawConnection(port: harness.port)
        try trickling.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let cut = await trickling.read(forAtMost: .seconds(10))
        #expect(cut.closed && cut.text.isEmpty, "closed without an answer: \(cut)")

        let prompt = try RawConnection(port: harness.port)
        try prompt.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let answered = await prompt.read(forAtMost: .seconds(10))
        #expect(answered.text.hasPrefix("HTTP/1.1 200") && answered.text.hasSuffix("ok\n"), "\(answered.text)")
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterItsAnswer() async throws {
        let harness = try await ServerHarness.start { $0.keepAliveTimeout = .milliseconds(300) }
        defer { Task { await harness.stop() } }
        let connection = try RawConnection(port: harness.port)
        try connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let result = await connection.read(forAtMost: .seconds(10))
        // The answer came, then, with nothing more asked, the close.
        #expect(result.text.hasPrefix("HTTP/1.1 200") && result.closed, "\(result)")
    }

    @Test func manyTricklingClientsDoNotKeepOthersFromAnswers() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        var trickling: [RawConnection] = []
        for index in 0..<150 {
            let connection = try RawConnection(port: harness.port)
            try connection.send("GET /health HTTP/1.1\r\nX-Slow-\(index): ")
            trickling.append(connection)
        }
        for _ in 0..<3 {
            for (index, connection) in trickling.enumerated() { try connection.send("\(index % 10)") }
            let health = try await harness.request("/health")
            #expect(health.status == .ok)
        }
        // They are all still open, waiting for their heads' ends.
        let first = await trickling[0].read(forAtMost: .milliseconds(50))
        #expect(!first.closed && first.text.isEmpty)
    }

    @Test func pastTheConnectionCapANewClientWaitsUntilOneCloses() async throws {
        let harness = try await ServerHarness.start { $0.maxConnections = 2 }
        defer { Task { await harness.stop() } }
        var held = [try RawConnection(port: harness.port), try RawConnection(port: harness.port)]
        // Both accepted: each answers.
        for connection in held {
            try connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await connection.read(forAtMost: .seconds(2)).text.hasPrefix("HTTP/1.1 200"))
        }
        let third = try RawConnection(port: harness.port)
        try third.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let waiting = await third.read(forAtMost: .seconds(2))
        #expect(waiting.text.isEmpty && !waiting.closed, "not accepted while two are open: \(waiting)")
        held.removeLast()  // closes one
        let answered = await third.read(forAtMost: .seconds(10))
        #expect(answered.text.hasPrefix("HTTP/1.1 200"), "\(answered)")
    }

    @Test func aDrainFailsHealthFirstWhileRequestsAreStillServed() async throws {
        // A grace long enough that a loaded machine still asks inside it.
        let harness = try await ServerHarness.start { $0.healthGrace = .seconds(3) }
        defer { Task { await harness.stop() } }
        #expect(try await harness.request("/health").status == .ok)
        let drain = Task { await harness.server.drain() }
        try await Task.sleep(for: .milliseconds(100))
        #expect(harness.server.isDraining)
        let health = try await harness.request("/health")
        #expect(health.status == .serviceUnavailable && health.text == "draining\n")
        #expect(try await harness.request("/metrics").status == .ok)
        await drain.value
    }
}
