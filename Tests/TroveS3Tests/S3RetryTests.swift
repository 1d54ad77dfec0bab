import Crypto
import FixtureServer
import Foundation
import Synchronization
import Testing
import TroveTestSupport

@testable import TroveS3

/// Retries, backoff and deadlines against a loopback HTTP server that answers as a throttled or failing S3
/// would, and what reaches the server (signed headers) and the log (never a secret).
@Suite struct S3RetryTests {
    static let secret = "retry-test-secret-0123456789"
    static let token = "retry-test-session-token-abcdef"

    static func slowDown(status: Int = 503, code: String = "SlowDown") -> FixtureServer.Route {
        .response(
            status: status, headers: ["Content-Type": "application/xml"],
            body: Data(
                ("<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>Please reduce your request rate."
                    + "</Message><RequestId>R1</RequestId></Error>").utf8))
    }

    static func client(
        _ server: FixtureServer, retry: S3RetryPolicy = S3RetryPolicy(baseDelay: .milliseconds(20)),
        logger: LogRecorder? = nil
    ) throws -> S3Client {
        let credentials = S3Credentials(accessKeyID: "AKIARETRY", secretAccessKey: secret, sessionToken: token)
        let configuration = try S3Configuration(
            endpoint: URL(string: "http://127.0.0.1:\(server.port ?? 0)")!, region: "us-east-1", bucket: "b",
            credentials: credentials, retry: retry)
        return S3Client(configuration: configuration, logger: logger?.logger() ?? S3Client.silentLogger)
    }

    static func withFixtureServer<T: Sendable>(_ body: (FixtureServer) async throws -> T) async throws -> T {
        let server = FixtureServer()
        try await server.start()
        return try await withCleanup {
            try await body(server)
        } finally: {
            await server.stop()
        }
    }

    @Test func slowDownTwiceThenSuccessIsRetriedAndLoggedWithoutSecrets() async throws {
        try await Self.withFixtureServer { server in
            let object = Data("the object".utf8)
            server.setRoute(
                "/b/photo.png",
                .sequence([Self.slowDown(), Self.slowDown(), .file(object, contentType: "image/png")]))
            let recorder = LogRecorder()
            let client = try Self.client(server, logger: recorder)
            let started = ContinuousClock.now
            let got = try await client.getData("photo.png", maxBytes: 1 << 20, deadline: .now + .seconds(10))
            #expect(got?.data == object)
            #expect(got?.info.contentType == "image/png")
            #expect(server.requestCount(for: "/b/photo.png") == 3)
            // Two waits of 20 ms then 40 ms, each at least half that with jitter.
            #expect(ContinuousClock.now - started >= .milliseconds(30))

            let lines = recorder.recorded
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.allSatisfy { $0.contains("retrying") && $0.contains("SlowDown") })
            for line in lines {
                #expect(!line.contains(Self.secret) && !line.contains(Self.token), "\(line)")
            }
            // Each attempt was signed afresh, with the token and the empty body's hash.
            for request in server.requestLog(for: "/b/photo.png") {
                #expect(request.header("authorization")?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIARETRY/") == true)
                #expect(request.header("x-amz-security-token") == Self.token)
                #expect(request.header("x-amz-content-sha256") == SigV4Payload.empty.contentSHA256)
            }
        }
    }

    @Test func aThrottledServerIsTriedMaxAttemptsTimesThenReported() async throws {
        try await Self.withFixtureServer { server in
            server.setRoute("/b/k", Self.slowDown())
            let client = try Self.client(server, retry: S3RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5)))
            await #expect {
                try await client.getData("k", maxBytes: 100, deadline: .now + .seconds(10))
            } throws: { error in
                guard case let S3Error.service(failure) = error else { return false }
                return failure.code == "SlowDown" && failure.status == 503 && failure.requestID == "R1"
            }
            #expect(server.requestCount(for: "/b/k") == 3)
        }
    }

    @Test func noRetryWaitsPastTheDeadline() async throws {
        try await Self.withFixtureServer { server in
            server.setRoute("/b/k", Self.slowDown(status: 500, code: "InternalError"))
            let client = try Self.client(server, retry: S3RetryPolicy(maxAttempts: 5, baseDelay: .seconds(2)))
            let started = ContinuousClock.now
            await #expect {
                try await client.getData("k", maxBytes: 100, deadline: .now + .milliseconds(800))
            } throws: { error in
                guard case let S3Error.service(failure) = error else { return false }
                return failure.code == "InternalError"
            }
            // The first wait (1-2 s) would end after the deadline, so the error came at once.
            #expect(ContinuousClock.now - started < .milliseconds(800))
            #expect(server.requestCount(for: "/b/k") == 1)
        }
    }

    @Test func aBodyStillArrivingAtTheDeadlineIsCutOff() async throws {
        try await Self.withFixtureServer { server in
            server.setRoute("/b/slow", .slowBody(Data(count: 10_000), chunkSize: 100, interval: .milliseconds(50)))
            let client = try Self.client(server)
            let started = ContinuousClock.now
            await #expect {
                try await client.getData("slow", maxBytes: 1 << 20, deadline: .now + .milliseconds(500))
            } throws: { error in
                guard case let S3Error.deadlineExceeded(operation, _) = error else { return false }
                return operation == "GET slow"
            }
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(2), "\(elapsed)")
        }
    }

    @Test func aPutFailingOnceIsSentAgainWholeAndSigned() async throws {
        try await Self.withFixtureServer { server in
            server.setRoute(
                "/b/up",
                .sequence([
                    Self.slowDown(status: 500, code: "InternalError"),
                    .response(status: 200, headers: ["ETag": "\"e1\""], body: Data())
                ]))
            let client = try Self.client(server)
            let body = Data((0..<5000).map { UInt8($0 % 251) })
            let result = try await client.put(
                "up", data: body, options: S3PutOptions(contentType: "application/octet-stream", onlyIfAbsent: true),
                deadline: .now + .seconds(10))
            #expect(result == .stored(etag: "\"e1\""))
            let requests = server.requestLog(for: "/b/up")
            #expect(requests.count == 2)
            let hash = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
            for request in requests {
                #expect(request.method == "PUT" && request.body == body)
                #expect(request.header("x-amz-content-sha256") == hash)
                #expect(request.header("if-none-match") == "*")
                #expect(request.header("content-type") == "application/octet-stream")
                #expect(request.header("authorization")?.contains("content-type;host;if-none-match;") == true)
            }
        }
    }

    @Test func preconditionFailedIsAlreadyExistsNotAnError() async throws {
        try await Self.withFixtureServer { server in
            server.setRoute("/b/taken", Self.slowDown(status: 412, code: "PreconditionFailed"))
            let client = try Self.client(server)
            let result = try await client.put(
                "taken", data: Data("x".utf8), options: S3PutOptions(onlyIfAbsent: true), deadline: .now + .seconds(5))
            #expect(result == .alreadyExists)
            #expect(server.requestCount(for: "/b/taken") == 1)
        }
    }

    @Test func anAnnouncedLengthOverTheLimitStopsBeforeTheBody() async throws {
        try await Self.withFixtureServer { server in
            server.setRoute("/b/big", .file(Data(count: 4096), contentType: "application/octet-stream"))
            let client = try Self.client(server)
            await #expect(throws: S3Error.tooLarge(operation: "GET big", limit: 4095)) {
                try await client.getData("big", maxBytes: 4095, deadline: .now + .seconds(5))
            }
            #expect(try await client.getData("big", maxBytes: 4096, deadline: .now + .seconds(5))?.data.count == 4096)
        }
    }

    @Test func aBodyCutShortIsFetchedAgainWholeButNotOnceStreamed() async throws {
        try await Self.withFixtureServer { server in
            let data = Data(SplitMix64.bytes(5000, seed: 9))
            let route = FixtureServer.Route.sequence([
                .cutMidBody(data, after: 1000), .file(data, contentType: "application/octet-stream")
            ])
            let client = try Self.client(server)
            server.setRoute("/b/cut", route)
            let whole = try await client.getData("cut", maxBytes: 1 << 20, deadline: .now + .seconds(10))
            #expect(whole?.data == data && whole?.info.size == data.count)
            #expect(server.requestCount(for: "/b/cut") == 2)

            // Streamed, the caller has seen the first bytes: the failure is reported, not retried.
            server.setRoute("/b/cut", route)
            let seen = Mutex(0)
            await #expect {
                try await client.get("cut", maxBytes: 1 << 20, deadline: .now + .seconds(10)) { chunk in
                    seen.withLock { $0 += chunk.readableBytes }
                }
            } throws: { error in
                guard case let S3Error.connectionFailed(_, reason) = error else { return false }
                return reason.contains("cut short")
            }
            #expect(seen.withLock { $0 } > 0)
            #expect(server.requestCount(for: "/b/cut") == 3)
        }
    }
}
