import FixtureServer
import Foundation
import Synchronization
import Testing
import TroveCore
import TroveFetcher

/// HTTPFetcher against a real server on 127.0.0.1.
@Suite struct HTTPFetcherTests {
    private static let body = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    private static let routes: [String: FixtureServer.Route] = [
        "/blob": .file(body, contentType: "application/octet-stream"),
        "/gone": .status(410),
        "/broken": .status(500),
        "/slow": .delayed(Data("late".utf8), contentType: "text/plain", delay: .seconds(3))
    ]

    /// The suite's routes, served by the shared helper in TestSupport.swift.
    private func withServer(_ body: (FixtureServer) async throws -> Void) async throws {
        try await TroveFetcherTests.withServer(Self.routes, body)
    }

    @Test func fetchesBodyValidatorsAndProgress() async throws {
        try await withServer { server in
            let seen = Mutex<[FetchProgress]>([])
            let outcome = try await HTTPFetcher().fetch(FetchRequest(url: server.url("/blob"))) { progress in
                seen.withLock { $0.append(progress) }
            }
            guard case let .data(data, metadata) = outcome else { Issue.record("expected data"); return }
            #expect(data == Self.body)
            #expect(metadata.statusCode == 200)
            #expect(metadata.contentType == "application/octet-stream")
            #expect(metadata.validators.etag != nil)
            #expect(metadata.validators.lastModified == "Mon, 02 Nov 2026 10:00:00 GMT")
            #expect(metadata.expectedLength == Int64(Self.body.count))
            let progress = seen.withLock { $0 }
            #expect(progress.last == FetchProgress(received: Int64(Self.body.count), expected: Int64(Self.body.count)))
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.received < $1.received })
        }
    }

    @Test func conditionalRequestGetsNotModified() async throws {
        try await withServer { server in
            guard case let .data(_, first) = try await HTTPFetcher().fetch(FetchRequest(url: server.url("/blob")))
            else {
                Issue.record("expected data"); return
            }
            let again = try await HTTPFetcher().fetch(
                FetchRequest(url: server.url("/blob"), validators: first.validators))
            guard case let .notModified(metadata) = again else { Issue.record("expected 304"); return }
            #expect(metadata.statusCode == 304)
        }
    }

    @Test func statusErrorsCarryTheStatusAndURL() async throws {
        try await withServer { server in
            for (path, status) in [("/gone", 410), ("/broken", 500), ("/missing", 404)] {
                let url = server.url(path)
                await #expect(throws: TroveError.httpStatus(status, url: url.absoluteString)) {
                    _ = try await HTTPFetcher().fetch(FetchRequest(url: url))
                }
            }
        }
    }

    @Test func bodyOverTheLimitIsRefused() async throws {
        try await withServer { server in
            let url = server.url("/blob")
            await #expect(throws: TroveError.tooLarge(url: url.absoluteString, limit: 1_000)) {
                _ = try await HTTPFetcher().fetch(FetchRequest(url: url, maxBytes: 1_000))
            }
        }
    }

    @Test func slowServerTimesOut() async throws {
        try await withServer { server in
            let url = server.url("/slow")
            await #expect(throws: TroveError.timedOut(url: url.absoluteString, after: .milliseconds(300))) {
                _ = try await HTTPFetcher().fetch(FetchRequest(url: url, timeout: .milliseconds(300)))
            }
        }
    }

    @Test func refusedConnectionIsAClearError() async throws {
        // Bind a server, note its port, stop it: nothing listens there now.
        let server = FixtureServer()
        let port = try await server.start()
        await server.stop()
        let url = URL(string: "http://127.0.0.1:\(port)/x")!
        let error = await #expect(throws: TroveError.self) {
            _ = try await HTTPFetcher().fetch(FetchRequest(url: url))
        }
        guard case let .connectionFailed(failedURL, _) = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))"); return
        }
        #expect(failedURL == url.absoluteString)
    }
}
