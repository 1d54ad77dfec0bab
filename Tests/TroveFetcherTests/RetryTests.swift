import FixtureServer
import Foundation
import Synchronization
import Testing
import TroveCore
import TroveFetcher

/// withRetries and RetryPolicy: what is retried, how often (counted by the server), and how long it waits.
@Suite(.timeLimit(.minutes(1)))
struct RetryTests {
    private static let quick = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))

    private func fetchWithRetries(
        _ url: URL, policy: RetryPolicy = quick, timeout: Duration = .seconds(15),
        delays: Recorder<Duration>? = nil
    ) async throws -> Data {
        try await withRetries(
            policy, onRetry: { _, _, delay in delays?.append(delay) },
            { _ in try await fetchData(url, timeout: timeout) })
    }

    @Test func transientFailuresAreRetriedUntilSuccess() async throws {
        let body = patternData(count: 3_000)
        try await withServer([
            "/flaky": .sequence([
                .status(503), .status(500),
                .file(body, contentType: "application/octet-stream")
            ])
        ]) { server in
            let attempts = Mutex<[Int]>([])
            let data = try await withRetries(Self.quick) { attempt in
                attempts.withLock { $0.append(attempt) }
                return try await fetchData(server.url("/flaky"))
            }
            #expect(data == body)
            #expect(attempts.withLock { $0 } == [0, 1, 2])
            #expect(server.requestCount(for: "/flaky") == 3)
        }
    }

    @Test func transientFailureGivesUpAfterMaxRetries() async throws {
        try await withServer(["/down": .status(503)]) { server in
            let url = server.url("/down")
            await #expect(throws: TroveError.httpStatus(503, url: url.absoluteString)) {
                _ = try await fetchWithRetries(url)
            }
            #expect(server.requestCount(for: "/down") == 3)  // the first try and 2 retries
        }
    }

    @Test func lastingFailuresAreNotRetried() async throws {
        try await withServer([
            "/gone": .status(410), "/bad": .status(400),
            "/big": .file(
                patternData(count: 2_000),
                contentType: "image/png")
        ]) { server in
            for (path, status) in [("/missing", 404), ("/gone", 410), ("/bad", 400)] {
                let url = server.url(path)
                await #expect(throws: TroveError.httpStatus(status, url: url.absoluteString)) {
                    _ = try await fetchWithRetries(url)
                }
                #expect(server.requestCount(for: path) == 1)
            }
            let big = server.url("/big")
            await #expect(throws: TroveError.tooLarge(url: big.absoluteString, limit: 100)) {
                _ = try await withRetries(Self.quick) { _ in
                    try await HTTPFetcher().fetch(FetchRequest(url: big, maxBytes: 100))
                }
            }
            #expect(server.requestCount(for: "/big") == 1)
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        let body = Data("ok".utf8)
        try await withServer([
            "/busy": .sequence([
                .response(status: 429, headers: ["Retry-After": "1"], body: Data("slow down".utf8)),
                .file(body, contentType: "text/plain")
            ]),
            "/maintenance": .sequence([
                .response(status: 503, headers: ["Retry-After": "3600"], body: Data()),
                .file(body, contentType: "text/plain")
            ])
        ]) { server in
            let delays = Recorder<Duration>()
            let policy = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(1), maxDelay: .seconds(10))
            let busy = try await fetchWithRetries(server.url("/busy"), policy: policy, delays: delays)
            #expect(busy == body)
            #expect(delays.all == [.seconds(1)])  // what the server asked, not the 1 ms backoff
            #expect(server.requestCount(for: "/busy") == 2)

            // An hour is more than maxDelay allows: the wait is capped.
            delays.removeAll()
            let capped = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(20))
            let maintenance = try await fetchWithRetries(server.url("/maintenance"), policy: capped, delays: delays)
            #expect(maintenance == body)
            #expect(delays.all == [.milliseconds(20)])
            #expect(server.requestCount(for: "/maintenance") == 2)
        }
    }

    @Test func cancellationDuringBackoffStopsAtOnce() async throws {
        try await withServer(["/busy": .response(status: 503, headers: ["Retry-After": "3600"], body: Data())]) {
            server in
            let (backingOff, signal) = AsyncStream<Duration>.makeStream()
            let policy = RetryPolicy(maxRetries: 5, maxDelay: .seconds(60))
            let task = Task {
                try await withRetries(policy, onRetry: { _, _, delay in signal.yield(delay) }) { _ in
                    try await fetchData(server.url("/busy"))
                }
            }
            var iterator = backingOff.makeAsyncIterator()
            #expect(await iterator.next() == .seconds(60))
            task.cancel()
            let error = await caughtError { _ = try await task.value }
            #expect(error as? TroveError == .cancelled)
            #expect(server.requestCount(for: "/busy") == 1)
        }
    }

    @Test func timeoutsAreRetried() async throws {
        try await withServer(["/slow": .delayed(Data("late".utf8), contentType: "text/plain", delay: .seconds(5))]) {
            server in
            let url = server.url("/slow")
            let attempts = Recorder<Int>()
            let policy = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(1))
            await #expect(throws: TroveError.timedOut(url: url.absoluteString, after: .milliseconds(300))) {
                _ = try await withRetries(policy) { attempt in
                    attempts.append(attempt)
                    return try await fetchData(url, timeout: .milliseconds(300))
                }
            }
            #expect(attempts.all == [0, 1])
            #expect(server.requestCount(for: "/slow") >= 1)
        }
    }

    @Test func aStallIsNotRetriedWhenAWholeIdleTimeoutNoLongerFitsBeforeTheDeadline() async throws {
        let never = FixtureGate()
        try await withServer(["/stalled": .gated(Data("late".utf8), contentType: "text/plain", gate: never)]) {
            server in
            let url = server.url("/stalled")
            // 0.9 s of silence leaves at most 0.6 s of a 1.5 s deadline: less than another idle timeout.
            let error = await caughtError {
                _ = try await withRetries(Self.quick, deadline: RequestDeadline(budget: .milliseconds(1500))) { _ in
                    try await fetchData(url, timeout: .milliseconds(900))
                }
            }
            never.open()
            #expect(error as? TroveError == .timedOut(url: url.absoluteString, after: .milliseconds(900)))
            #expect("\(error.map { "\($0)" } ?? "")".contains("the origin sent nothing for 0.9 seconds"))
            #expect(server.requestCount(for: "/stalled") == 1)
        }
    }

    @Test func otherTransientFailuresStillRetryWithinTheDeadline() async throws {
        try await withServer(["/down": .status(503)]) { server in
            let url = server.url("/down")
            await #expect(throws: TroveError.httpStatus(503, url: url.absoluteString)) {
                _ = try await withRetries(Self.quick, deadline: RequestDeadline(budget: .seconds(30))) { _ in
                    try await fetchData(url)
                }
            }
            #expect(server.requestCount(for: "/down") == 3)
        }
    }

    @Test func theRetryDecisionAtTheDefaultTimeouts() {
        let policy = RetryPolicy()
        let idle = Duration.seconds(15), deadline = Duration.seconds(20)
        let stall = TroveError.timedOut(url: "u", after: idle)
        let backoff = policy.backoff(afterAttempt: 0, random: 0)
        // The first attempt heard nothing for 15 s: 5 s are left, less than another idle timeout.
        #expect(!policy.shouldRetry(stall, afterAttempt: 0, delay: backoff, remaining: deadline - idle))
        // A stall that came early (the connection took a while to fail) is retried when 15 s still fit.
        #expect(policy.shouldRetry(stall, afterAttempt: 0, delay: backoff, remaining: idle + backoff))
        #expect(!policy.shouldRetry(stall, afterAttempt: 0, delay: backoff, remaining: idle))
        // A refused connection, a 5xx and a 429 retry while the wait ends before the deadline.
        let refused = TroveError.connectionFailed(url: "u", reason: "connection refused")
        #expect(policy.shouldRetry(refused, afterAttempt: 0, delay: backoff, remaining: .seconds(19)))
        #expect(
            policy.shouldRetry(
                TroveError.httpStatus(503, url: "u"), afterAttempt: 1, delay: backoff, remaining: .seconds(1)))
        #expect(
            !policy.shouldRetry(
                TroveError.httpStatus(503, url: "u"), afterAttempt: 1, delay: backoff, remaining: backoff))
        let busy = TroveError.serverBusy(status: 429, url: "u", retryAfter: .seconds(8))
        #expect(!policy.shouldRetry(busy, afterAttempt: 0, delay: .seconds(8), remaining: .seconds(5)))
        #expect(policy.shouldRetry(busy, afterAttempt: 0, delay: .seconds(8), remaining: .seconds(9)))
        // Out of retries, a lasting failure, and no deadline at all.
        #expect(!policy.shouldRetry(refused, afterAttempt: 2, delay: backoff, remaining: .seconds(19)))
        #expect(
            !policy.shouldRetry(
                TroveError.httpStatus(404, url: "u"), afterAttempt: 0, delay: backoff, remaining: .seconds(19)))
        #expect(policy.shouldRetry(stall, afterAttempt: 0, delay: backoff, remaining: nil))
    }

    @Test func refusedConnectionsAreRetriedThenReported() async throws {
        let server = FixtureServer()
        let port = try await server.start()
        await server.stop()
        let url = URL(string: "http://127.0.0.1:\(port)/x")!
        let retries = Mutex(0)
        let error = await caughtError {
            _ = try await withRetries(Self.quick, onRetry: { _, _, _ in retries.withLock { $0 += 1 } }) { _ in
                try await fetchData(url)
            }
        }
        guard case let .connectionFailed(failedURL, reason) = error as? TroveError else {
            Issue.record("expected connectionFailed, got \(String(describing: error))"); return
        }
        #expect(failedURL == url.absoluteString)
        #expect(reason.contains("connection refused by 127.0.0.1:\(port)"))
        #expect(retries.withLock { $0 } == 2)
    }

    @Test func backoffDoublesUpToTheCap() {
        let policy = RetryPolicy(maxRetries: 9, baseDelay: .milliseconds(100), maxDelay: .seconds(1), jitter: 0)
        let delays = (0..<6).map { policy.backoff(afterAttempt: $0, random: 0.7) }
        #expect(
            delays == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                .seconds(1), .seconds(1)
            ])
        #expect(policy.backoff(afterAttempt: Int.max, random: 0) == .seconds(1))
    }

    @Test func jitterShortensTheWaitWithinItsBand() {
        let policy = RetryPolicy(baseDelay: .milliseconds(400), maxDelay: .seconds(10), jitter: 0.5)
        #expect(policy.backoff(afterAttempt: 1, random: 0) == .milliseconds(800))
        #expect(policy.backoff(afterAttempt: 1, random: 1) == .milliseconds(400))
        #expect(policy.backoff(afterAttempt: 1, random: 0.5) == .milliseconds(600))
        for _ in 0..<200 {
            let delay = policy.delay(afterAttempt: 0, error: TroveError.timedOut(url: "u", after: .seconds(1)))
            #expect(delay >= .milliseconds(200) && delay <= .milliseconds(400))
        }
    }

    @Test func transientClassification() {
        let transient: [TroveError] = [
            .timedOut(url: "u", after: .seconds(1)), .connectionFailed(url: "u", reason: "reset"),
            .lengthMismatch(url: "u", expected: 10, received: 4), .httpStatus(500, url: "u"),
            .httpStatus(503, url: "u"), .httpStatus(429, url: "u"), .httpStatus(408, url: "u"),
            .serverBusy(status: 429, url: "u", retryAfter: .seconds(2))
        ]
        let lasting: [TroveError] = [
            .httpStatus(404, url: "u"), .httpStatus(410, url: "u"), .httpStatus(400, url: "u"),
            .httpStatus(403, url: "u"), .cancelled, .tooLarge(url: "u", limit: 1),
            .tooManyRedirects(url: "u", limit: 5), .malformedURL(url: "u", reason: "r"),
            .decodingFailed(format: .png, reason: "r"), .unsupportedFormat(url: "u", firstBytes: [1])
        ]
        for error in transient { #expect(RetryPolicy.isTransient(error), "\(error)") }
        for error in lasting { #expect(!RetryPolicy.isTransient(error), "\(error)") }
        #expect(!RetryPolicy.isTransient(CancellationError()))
        for error in transient { #expect(!error.isLasting, "\(error)") }
    }

    @Test func invalidPolicyValuesAreClamped() {
        let policy = RetryPolicy(maxRetries: -1, baseDelay: .seconds(-1), jitter: 3)
        #expect(policy.maxRetries == 0 && policy.baseDelay == .zero && policy.jitter == 1)
    }
}
