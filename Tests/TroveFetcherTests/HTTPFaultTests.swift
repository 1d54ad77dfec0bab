import FixtureServer
import Foundation
import Synchronization
import Testing
import TroveCore
import TroveFetcher

/// HTTPFetcher against a server that misbehaves: each fault must give its own clear error, never a partial body.
@Suite(.timeLimit(.minutes(1)))
struct HTTPFaultTests {
    private static let body = patternData(count: 1_000)

    @Test func bodyShorterThanContentLengthIsALengthMismatch() async throws {
        try await withServer(["/short": .wrongLength(Data(Self.body.prefix(400)), announced: 1_000)]) { server in
            let url = server.url("/short")
            await #expect(throws: TroveError.lengthMismatch(url: url.absoluteString, expected: 1_000, received: 400)) {
                _ = try await fetchData(url)
            }
        }
    }

    /// HTTP/1.1 ends a body at its Content-Length, so bytes past it are not body: the fetch gets exactly the
    /// announced bytes. The surplus spoils that connection, so the next request on it may fail as a
    /// transient connection error, which a retry gets past.
    @Test func bytesPastContentLengthNeverReachTheBody() async throws {
        try await withServer([
            "/long": .wrongLength(Self.body, announced: 400),
            "/after": .file(Data("after".utf8), contentType: "text/plain")
        ]) { server in
            let long = try await fetchData(server.url("/long"))
            #expect(long == Self.body.prefix(400))
            let policy = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(1))
            let after = try await withRetries(policy) { _ in try await fetchData(server.url("/after")) }
            #expect(after == Data("after".utf8))
        }
    }

    @Test func connectionCutMidBodyIsAConnectionFailureNamingTheBytes() async throws {
        try await withServer(["/cut": .cutMidBody(Self.body, after: 400)]) { server in
            let url = server.url("/cut")
            let error = await caughtError { _ = try await fetchData(url) }
            guard case let .connectionFailed(failedURL, reason) = error as? TroveError else {
                Issue.record("expected connectionFailed, got \(String(describing: error))"); return
            }
            #expect(failedURL == url.absoluteString)
            #expect(reason.hasPrefix("the connection was lost after 400 bytes of the body, before it ended"))
        }
    }

    @Test func slowBodyWithinTheTimeoutArrivesWhole() async throws {
        try await withServer(["/trickle": .slowBody(Self.body, chunkSize: 250, interval: .milliseconds(20))]) {
            server in
            let data = try await fetchData(server.url("/trickle"))
            #expect(data == Self.body)
        }
    }

    /// The server sends 250 bytes and waits; the test lets it go on only after progress reported them.
    @Test func progressReportsAPartialBodyAsItArrives() async throws {
        let gate = FixtureGate()
        try await withServer(["/paused": .pausedBody(Self.body, pauseAfter: 250, gate: gate)]) { server in
            let seen = Recorder<FetchProgress>()
            let outcome = try await HTTPFetcher().fetch(FetchRequest(url: server.url("/paused"))) { progress in
                seen.append(progress)
                if progress.received >= 250 { gate.open() }
            }
            guard case let .data(data, _) = outcome else { Issue.record("expected data"); return }
            #expect(data == Self.body)
            let progress = seen.all
            #expect(progress.contains(FetchProgress(received: 250, expected: 1_000)))
            #expect(progress.last == FetchProgress(received: 1_000, expected: 1_000))
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.received < $1.received })
        }
    }

    /// The timeout is an idle timeout (issue 14): a body that keeps coming, however slowly, is fine; a
    /// pause longer than the timeout is not; the deadline bounds the whole exchange.
    @Test func aSlowButSteadyBodyArrivesAndAStalledOneTimesOut() async throws {
        // Margins of many times the intervals: a loaded machine delays the fixture server's sleeps.
        try await withServer([
            "/steady": .slowBody(Self.body, chunkSize: 25, interval: .milliseconds(120)),
            "/stalled": .slowBody(Self.body, chunkSize: 500, interval: .seconds(8))
        ]) { server in
            // 40 parts 120 ms apart take longer than the 3 s timeout in all, but no pause is that long.
            let start = ContinuousClock.now
            let steady = try await fetchData(server.url("/steady"), timeout: .seconds(3))
            #expect(steady == Self.body)
            #expect(ContinuousClock.now - start > .seconds(3))
            let stalled = server.url("/stalled")
            await #expect(throws: TroveError.timedOut(url: stalled.absoluteString, after: .seconds(3))) {
                _ = try await fetchData(stalled, timeout: .seconds(3))
            }
        }
    }

    @Test func theDeadlineBoundsTheWholeExchange() async throws {
        try await withServer(["/trickle": .slowBody(Self.body, chunkSize: 100, interval: .milliseconds(100))]) {
            server in
            let url = server.url("/trickle")
            let request = FetchRequest(
                url: url, timeout: .seconds(5), deadline: RequestDeadline(budget: .milliseconds(300)))
            let error = await #expect(throws: TroveError.self) { _ = try await HTTPFetcher().fetch(request) }
            #expect(error == .deadlineExceeded(url: url.absoluteString, after: .milliseconds(300)))
            #expect(
                error?.description.contains("did not finish within its deadline of 0.3 seconds, retries included")
                    == true)
        }
    }

    @Test func busyStatusesCarryRetryAfter() async throws {
        try await withServer([
            "/limited": .response(status: 429, headers: ["Retry-After": "7"], body: Data("slow down".utf8)),
            "/maintenance": .response(status: 503, headers: ["Retry-After": " 120 "], body: Data()),
            "/broken": .response(status: 503, headers: [:], body: Data()),
            "/teapot": .response(status: 418, headers: ["Retry-After": "5"], body: Data())
        ]) { server in
            for (path, status, wait) in [("/limited", 429, Duration.seconds(7)), ("/maintenance", 503, .seconds(120))] {
                let url = server.url(path)
                await #expect(throws: TroveError.serverBusy(status: status, url: url.absoluteString, retryAfter: wait))
                {
                    _ = try await fetchData(url)
                }
            }
            // Without Retry-After, or on a status where it means nothing, the plain status error.
            for (path, status) in [("/broken", 503), ("/teapot", 418)] {
                let url = server.url(path)
                await #expect(throws: TroveError.httpStatus(status, url: url.absoluteString)) {
                    _ = try await fetchData(url)
                }
            }
        }
    }

    @Test func retryAfterAsAnHTTPDate() async throws {
        let inAnHour = FixtureServer.httpDate(Date().addingTimeInterval(3_600))
        try await withServer(["/later": .response(status: 503, headers: ["Retry-After": inAnHour], body: Data())]) {
            server in
            let error = await caughtError { _ = try await fetchData(server.url("/later")) }
            guard case let .serverBusy(status, _, retryAfter) = error as? TroveError else {
                Issue.record("expected serverBusy, got \(String(describing: error))"); return
            }
            #expect(status == 503)
            #expect(retryAfter > .seconds(3_500) && retryAfter <= .seconds(3_600))
        }
    }

    @Test func basicAuthHeaderIsSentAndAccepted() async throws {
        let secret = Data("secret".utf8)
        try await withServer([
            "/private": .basicAuth(
                user: "Aladdin", password: "open sesame",
                .file(secret, contentType: "text/plain"))
        ]) { server in
            let url = server.url("/private")
            await #expect(throws: TroveError.httpStatus(401, url: url.absoluteString)) { _ = try await fetchData(url) }

            let header = try HTTPFetcher.basicAuthorization(user: "Aladdin", password: "open sesame")
            #expect(header.name == "Authorization")
            #expect(header.value == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")  // RFC 7617 §2's example
            #expect(try await fetchData(url, headers: [header.name: header.value]) == secret)
            #expect(
                server.requestLog(for: "/private").map { $0.header("Authorization") }
                    == [nil, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="])
        }
    }

    @Test func basicAuthRefusesAColonInTheUserName() {
        #expect(throws: TroveError.invalidConfiguration("a basic-auth user name cannot contain ':' (got 'a:b')")) {
            _ = try HTTPFetcher.basicAuthorization(user: "a:b", password: "p")
        }
    }

    @Test func fiveRedirectsAreFollowedAndSixAreTooMany() async throws {
        try await withServer([
            "/five": .redirectChain(hops: 5, to: "/target"),
            "/six": .redirectChain(hops: 6, to: "/target"),
            "/loop": .redirect(to: "/loop", status: 302),
            "/target": .file(Self.body, contentType: "application/octet-stream")
        ]) { server in
            let data = try await fetchData(server.url("/five"))
            #expect(data == Self.body)
            #expect(server.requestCount(for: "/five") == 5)
            #expect(server.requestCount(for: "/target") == 1)

            for path in ["/six", "/loop"] {
                let url = server.url(path)
                await #expect(throws: TroveError.tooManyRedirects(url: url.absoluteString, limit: 5)) {
                    _ = try await fetchData(url)
                }
            }
            #expect(server.requestCount(for: "/six") == 6)
            #expect(server.requestCount(for: "/target") == 1)
        }
    }

    /// A redirect may carry a body (an HTML "moved" page); AsyncHTTPClient drops a long one differently from
    /// a short one, and both must still lead to the target.
    @Test(arguments: [100, 4_000, 40_000])
    func redirectsWithABodyAreFollowed(bodyBytes: Int) async throws {
        let page = Data(repeating: UInt8(ascii: "m"), count: bodyBytes)
        try await withServer([
            "/moved": .response(
                status: 302, headers: ["Location": "/target", "Content-Type": "text/html"],
                body: page),
            "/target": .file(Self.body, contentType: "application/octet-stream")
        ]) { server in
            let data = try await fetchData(server.url("/moved"))
            #expect(data == Self.body)
            #expect(server.requestCount(for: "/target") == 1)
        }
    }

    /// A redirect out of http(s) is a lasting failure that names where it pointed, so it is not retried.
    @Test func aRedirectToAnotherSchemeIsALastingError() async throws {
        try await withServer(["/ftp": .redirect(to: "ftp://example.com/a.png")]) { server in
            let url = server.url("/ftp")
            let expected = TroveError.malformedURL(
                url: url.absoluteString,
                reason: "it redirects to \"ftp://example.com/a.png\", which is not an http or https URL")
            await #expect(throws: expected) { _ = try await HTTPFetcher().fetch(FetchRequest(url: url)) }
            #expect(!RetryPolicy.isTransient(expected))
        }
    }

    /// Credentials follow a redirect on the same origin and are dropped when it leads to another one
    /// (another port is another origin).
    @Test func credentialsStayWithTheirOrigin() async throws {
        try await withServer(["/target": .file(Self.body, contentType: "application/octet-stream")]) { other in
            try await withServer([
                "/here": .redirect(to: "/target"),
                "/away": .redirect(to: other.url("/target").absoluteString),
                "/target": .file(Self.body, contentType: "application/octet-stream")
            ]) { server in
                let secrets = ["Authorization": "Bearer s3cret", "Cookie": "session=1", "X-Trace": "t-1"]
                for path in ["/here", "/away"] {
                    guard
                        case let .data(data, _) = try await HTTPFetcher().fetch(
                            FetchRequest(url: server.url(path), headers: secrets))
                    else {
                        Issue.record("no data for \(path)")
                        return
                    }
                    #expect(data == Self.body)
                }
                let sameOrigin = try #require(server.requestLog.last { $0.path == "/target" })
                #expect(sameOrigin.header("authorization") == "Bearer s3cret")
                #expect(sameOrigin.header("cookie") == "session=1")
                let crossOrigin = try #require(other.requestLog.last { $0.path == "/target" })
                #expect(crossOrigin.header("authorization") == nil)
                #expect(crossOrigin.header("cookie") == nil)
                #expect(crossOrigin.header("x-trace") == "t-1")
            }
        }
    }

    @Test func conditionalRequestsSendValidatorsAndSeeChanges() async throws {
        let modified = Date(timeIntervalSince1970: 1_790_000_000)
        let original = Data("version 1".utf8)
        try await withServer(["/doc": .conditional(original, contentType: "text/plain", lastModified: modified)]) {
            server in
            let url = server.url("/doc")
            guard case let .data(data, first) = try await HTTPFetcher().fetch(FetchRequest(url: url)) else {
                Issue.record("expected data"); return
            }
            #expect(data == original)
            #expect(
                first.validators
                    == Validators(
                        etag: FixtureServer.etag(for: original),
                        lastModified: FixtureServer.httpDate(modified)))

            // Unchanged: 304 by ETag, and by date alone.
            guard
                case .notModified = try await HTTPFetcher().fetch(FetchRequest(url: url, validators: first.validators)),
                case .notModified = try await HTTPFetcher().fetch(
                    FetchRequest(
                        url: url, validators: Validators(lastModified: first.validators.lastModified)))
            else {
                Issue.record("expected 304 for an unchanged resource"); return
            }
            let log = server.requestLog(for: "/doc")
            #expect(log.count == 3)
            #expect(log[1].header("If-None-Match") == first.validators.etag)
            #expect(log[1].header("If-Modified-Since") == first.validators.lastModified)
            #expect(log[2].header("If-None-Match") == nil)

            // Changed: a 200 with the new bytes and a new ETag.
            let changed = Data("version 2".utf8)
            server.setRoute(
                "/doc",
                .conditional(
                    changed, contentType: "text/plain",
                    lastModified: modified.addingTimeInterval(60)))
            guard
                case let .data(newData, second) = try await HTTPFetcher().fetch(
                    FetchRequest(url: url, validators: first.validators))
            else {
                Issue.record("expected the changed body"); return
            }
            #expect(newData == changed)
            #expect(second.validators.etag == FixtureServer.etag(for: changed))
            #expect(second.validators.etag != first.validators.etag)
        }
    }

    @Test func urlWithoutAHostIsMalformed() async throws {
        let url = URL(string: "http:///nohost.png")!
        await #expect(throws: TroveError.malformedURL(url: url.absoluteString, reason: "it has no host")) {
            _ = try await HTTPFetcher().fetch(FetchRequest(url: url))
        }
        #expect(TroveError.malformedURL(url: "u", reason: "r").isLasting)
    }
}
