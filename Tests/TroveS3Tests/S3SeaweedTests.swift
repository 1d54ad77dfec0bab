import Foundation
import NIOCore
import Synchronization
import Testing
import TroveTestSupport

@testable import TroveS3

/// The client against a real S3 server: SeaweedFS on loopback with SigV4 auth on, one server for the suite.
@Suite(.serialized, .seaweedServer) struct S3SeaweedTests {
    var server: SeaweedTestServer {
        get throws { try #require(SeaweedServerTrait.current) }
    }

    static func soon() -> ContinuousClock.Instant { .now + .seconds(20) }

    /// `count` pseudo-random bytes, written a word at a time (SplitMix64.bytes is slow for 40 MiB in a debug build).
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { raw in
            for offset in stride(from: 0, to: count - 7, by: 8) {
                raw.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
            }
        }
        return bytes
    }

    @Test func putGetHeadDeleteRoundTrip() async throws {
        let client = try server.client()
        // Spaces, '+', '=', '%', non-ASCII and nested prefixes: encoded once, stored under exactly this name.
        let key = "round trip/a+b=c%d/ü 🙂.bin"
        let value = Data(SplitMix64.bytes(70_001, seed: 1))
        let stored = try await client.put(
            key, data: value, options: S3PutOptions(contentType: "application/x-trove"), deadline: Self.soon())
        guard case let .stored(etag) = stored else { Issue.record("not stored: \(stored)"); return }
        #expect(etag?.isEmpty == false)

        let info = try #require(try await client.head(key, deadline: Self.soon()))
        #expect(info.size == value.count)
        #expect(info.contentType == "application/x-trove")
        #expect(info.etag == etag)

        let object = try #require(try await client.getData(key, maxBytes: 1 << 20, deadline: Self.soon()))
        #expect(object.data == value)
        #expect(object.info == info)

        let collected = Mutex(Data())
        let streamed = try await client.get(key, maxBytes: 1 << 20, deadline: Self.soon()) { chunk in
            collected.withLock { $0.append(contentsOf: chunk.readableBytesView) }
        }
        #expect(streamed == info)
        #expect(collected.withLock { $0 } == value)

        await #expect(throws: S3Error.tooLarge(operation: "GET \(key)", limit: 70_000)) {
            try await client.getData(key, maxBytes: 70_000, deadline: Self.soon())
        }

        try await client.delete(key, deadline: Self.soon())
        #expect(try await client.head(key, deadline: Self.soon()) == nil)
        #expect(try await client.getData(key, maxBytes: 1 << 20, deadline: Self.soon()) == nil)
        try await client.delete(key, deadline: Self.soon())
    }

    @Test func anEmptyObjectIsStoredAndReadBack() async throws {
        let client = try server.client(payloadSigning: .unsigned)
        #expect(try await client.put("empty", data: Data(), deadline: Self.soon()) != .alreadyExists)
        let object = try #require(try await client.getData("empty", maxBytes: 10, deadline: Self.soon()))
        #expect(object.data.isEmpty && object.info.size == 0)
    }

    @Test func fortyMegabytesGoUpInPartsAndComeBackByteForByte() async throws {
        let client = try server.client()
        let chunkSize = 1 << 20
        let expected = Self.randomBytes(40 * chunkSize, seed: 40)
        let chunks = stride(from: 0, to: expected.count, by: chunkSize).map {
            ByteBuffer(bytes: expected[$0..<($0 + chunkSize)])
        }
        let (body, input) = AsyncStream<ByteBuffer>.makeStream()
        for chunk in chunks { input.yield(chunk) }
        input.finish()

        var started = ContinuousClock.now
        let stored = try await client.put(
            "large/forty.bin", body: body, options: S3PutOptions(contentType: "application/octet-stream"),
            deadline: .now + .seconds(120))
        let putTime = ContinuousClock.now - started
        guard case let .stored(etag) = stored else { Issue.record("not stored: \(stored)"); return }
        // 40 MiB in 8 MiB parts: a multipart ETag names its 5 parts.
        #expect(etag?.hasSuffix("-5\"") == true, "ETag \(etag ?? "nil")")

        let checker = StreamChecker(expected: expected)
        started = ContinuousClock.now
        let info = try await client.get("large/forty.bin", maxBytes: 64 << 20, deadline: .now + .seconds(120)) {
            checker.check($0)
        }
        let getTime = ContinuousClock.now - started
        #expect(info?.size == expected.count)
        let (received, mismatchAt, pieces) = checker.result
        #expect(received == expected.count)
        #expect(mismatchAt == nil, "first differing byte at \(mismatchAt ?? -1)")
        #expect(pieces > 1, "the body arrived in \(pieces) pieces")
        print("S3 40 MiB: multipart PUT \(putTime), streamed GET \(getTime) in \(pieces) pieces")
        try await client.delete("large/forty.bin", deadline: Self.soon())
    }

    @Test func ifNoneMatchStoresOnceThenSaysAlreadyExists() async throws {
        let client = try server.client()
        let absent = S3PutOptions(onlyIfAbsent: true)
        let first = try await client.put("once", data: Data("first".utf8), options: absent, deadline: Self.soon())
        guard case .stored = first else { Issue.record("first write: \(first)"); return }
        let second = try await client.put("once", data: Data("second".utf8), options: absent, deadline: Self.soon())
        #expect(second == .alreadyExists)
        #expect(try await client.getData("once", maxBytes: 100, deadline: Self.soon())?.data == Data("first".utf8))

        // A multipart write to a taken key is refused too, and leaves the object as it was.
        let small = try server.client(
            partSize: S3Configuration.minimumPartSize,
            multipartThreshold: S3Configuration.minimumPartSize)
        let large = Data(count: S3Configuration.minimumPartSize + 1)
        #expect(try await small.put("once", data: large, options: absent, deadline: Self.soon()) == .alreadyExists)
        #expect(try await client.getData("once", maxBytes: 100, deadline: Self.soon())?.data == Data("first".utf8))

        // Without the HEAD first, the completion's own If-None-Match refuses it (what decides a race).
        let raced = try await withDeadline(Self.soon(), operation: "PUT once") {
            var rest = AsyncStream<ByteBuffer> { $0.finish() }.makeAsyncIterator()
            return try await small.putMultipart(
                "once", first: ByteBuffer(bytes: large), rest: &rest, options: absent, deadline: Self.soon(),
                checksFirst: false)
        }
        #expect(raced == .alreadyExists)
        #expect(try await client.getData("once", maxBytes: 100, deadline: Self.soon())?.data == Data("first".utf8))
    }

    @Test func aWrongSecretIsACredentialsErrorThatDoesNotShowTheSecret() async throws {
        let wrong = "not-the-secret-\(UUID().uuidString)"
        let client = try server.client(secret: wrong)
        let right = try server.secretAccessKey
        for attempt in ["PUT", "GET"] {
            do {
                if attempt == "PUT" {
                    _ = try await client.put("denied", data: Data("x".utf8), deadline: Self.soon())
                } else {
                    _ = try await client.getData("denied", maxBytes: 10, deadline: Self.soon())
                }
                Issue.record("\(attempt) with a wrong secret succeeded")
            } catch {
                let message = "\(error)"
                guard case let S3Error.service(failure) = error else {
                    Issue.record("\(attempt): \(error)")
                    continue
                }
                #expect(failure.code == "SignatureDoesNotMatch")
                #expect(failure.status == 403)
                #expect(message.contains("the credentials were refused"), "\(message)")
                #expect(message.contains("check AWS_SECRET_ACCESS_KEY"), "\(message)")
                #expect(!message.contains(wrong) && !message.contains(right), "\(message)")
                #expect(!String(reflecting: error).contains(wrong))
            }
        }
    }

    @Test func aMissingBucketIsNamedWithTheEndpoint() async throws {
        let client = try server.client(bucket: "no-such-bucket")
        let endpoint = try server.endpoint.absoluteString
        for attempt in ["GET", "PUT"] {
            do {
                if attempt == "GET" {
                    _ = try await client.getData("k", maxBytes: 10, deadline: Self.soon())
                } else {
                    _ = try await client.put("k", data: Data("x".utf8), deadline: Self.soon())
                }
                Issue.record("\(attempt) to a missing bucket succeeded")
            } catch {
                #expect(
                    "\(error)".contains("bucket no-such-bucket does not exist at endpoint \(endpoint)"),
                    "\(attempt): \(error)")
            }
        }
    }

    @Test func smallGetsAreQuick() async throws {
        let client = try server.client()
        let value = Data(SplitMix64.bytes(4096, seed: 7))
        _ = try await client.put("small", data: value, deadline: Self.soon())
        _ = try await client.getData("small", maxBytes: 8192, deadline: Self.soon())
        let rounds = 50
        let started = ContinuousClock.now
        for _ in 0..<rounds {
            #expect(try await client.getData("small", maxBytes: 8192, deadline: Self.soon())?.data == value)
        }
        print("S3 4 KiB GET against SeaweedFS: \((ContinuousClock.now - started) / rounds) each over \(rounds)")
    }
}

/// A server that is not there: stopped SeaweedFS.
@Suite struct S3ServerGoneTests {
    @Test func aStoppedServerGivesAConnectionErrorWithinTheDeadline() async throws {
        let server = try await SeaweedTestServer.start()
        let client = try server.client(retry: S3RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(50)))
        _ = try await client.put("k", data: Data("x".utf8), deadline: .now + .seconds(20))
        await server.stop()

        let started = ContinuousClock.now
        await #expect {
            try await client.getData("k", maxBytes: 10, deadline: .now + .seconds(5))
        } throws: { error in
            guard case let S3Error.connectionFailed(endpoint, reason) = error else { return false }
            return endpoint == server.endpoint.absoluteString && reason.contains("refused")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}

/// Compares a streamed body with the bytes expected, piece by piece as it arrives.
final class StreamChecker: Sendable {
    private let expected: [UInt8]
    private let state = Mutex<(received: Int, mismatchAt: Int?, pieces: Int)>((0, nil, 0))

    init(expected: [UInt8]) { self.expected = expected }

    func check(_ buffer: ByteBuffer) {
        state.withLock { state in
            let offset = state.received
            state.received += buffer.readableBytes
            state.pieces += 1
            guard state.mismatchAt == nil, buffer.readableBytes > 0 else { return }
            guard state.received <= expected.count else {
                state.mismatchAt = expected.count
                return
            }
            let same = buffer.withUnsafeReadableBytes { piece in
                expected.withUnsafeBytes { all in
                    memcmp(piece.baseAddress!, all.baseAddress! + offset, piece.count) == 0
                }
            }
            if !same { state.mismatchAt = offset }
        }
    }

    var result: (received: Int, mismatchAt: Int?, pieces: Int) { state.withLock { $0 } }
}
