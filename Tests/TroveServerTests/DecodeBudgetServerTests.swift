import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove
import TroveServer
import TroveTestSupport

/// `--memory-budget` end to end: a decode that cannot have memory waits, then 429 past the queue or 503
/// past the deadline, each with `Retry-After`; a source over the whole budget gets a 422 naming it; the
/// budget's numbers are in `/metrics`.
@Suite struct DecodeBudgetServerTests {
    static let signer = URLSigner.test
    static let png = try! Data(contentsOf: TestImages.folder.appendingPathComponent("chelsea.png"))
    static let animatedGIF = try! Data(
        contentsOf: TestImages.folder.deletingLastPathComponent().appendingPathComponent("gif/animated.gif"))
    static let later = ContinuousClock.now + .seconds(3600)

    static func start(
        _ routes: [String: FixtureServer.Route], _ configure: (inout ServerConfiguration) -> Void
    ) async throws -> ServerHarness {
        try await ServerHarness.start(origin: FixtureServer(routes: routes)) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
            configure(&configuration)
        }
    }

    static func thumbnail(_ harness: ServerHarness, _ path: String) -> String {
        signer.signed("/rs:fit:20:20/plain/\(harness.origin.url(path))@png")
    }

    @Test func aFullBudgetAnswers429PastTheQueueAndCountsIt() async throws {
        let harness = try await Self.start(["/a.png": .file(Self.png, contentType: "image/png")]) {
            $0.pipeline.decodeMemoryBudget = 1 << 20
            $0.maxQueue = 0
        }
        defer { Task { await harness.stop() } }
        let budget = try #require(harness.server.pipeline.decodeBudget)
        #expect(budget.queueLimit == 0)
        // Every byte taken, as by a large decode in progress.
        let held = try await budget.reserve(1 << 20, for: "held", until: Self.later)
        let refused = try await harness.request(Self.thumbnail(harness, "/a.png"))
        #expect(refused.status == .tooManyRequests)
        #expect(refused.header(.retryAfter) == "1")
        #expect(refused.header(.cacheControl) == "no-store")
        #expect(try await harness.metric("trove_decode_memory_budget_bytes") == Double(1 << 20))
        #expect(try await harness.metric("trove_decode_memory_reserved_bytes") == Double(1 << 20))
        #expect(try await harness.metric("trove_decode_memory_waiting") == 0)
        #expect(try await harness.metric("trove_decode_memory_refusals_total", labels: "cause=\"queue_full\"") == 1)
        #expect(try await harness.metric("trove_decode_memory_refusals_total", labels: "cause=\"deadline\"") == 0)
        held.release()
        // With the memory back, the same URL is served.
        #expect(try await harness.request(Self.thumbnail(harness, "/a.png")).status == .ok)
        #expect(try await harness.metric("trove_decode_memory_reserved_bytes") == 0)
    }

    @Test func aWaitPastTheDeadlineAnswers503WithRetryAfter() async throws {
        let harness = try await Self.start(["/a.png": .file(Self.png, contentType: "image/png")]) {
            $0.pipeline.decodeMemoryBudget = 1 << 20
            $0.pipeline.requestDeadline = .seconds(2)
        }
        defer { Task { await harness.stop() } }
        let budget = try #require(harness.server.pipeline.decodeBudget)
        let held = try await budget.reserve(1 << 20, for: "held", until: Self.later)
        defer { held.release() }
        let answer = try await harness.request(Self.thumbnail(harness, "/a.png"))
        // The budget gives up before the whole request's deadline (504) would.
        #expect(answer.status == .serviceUnavailable)
        #expect(answer.header(.retryAfter) == "5")
        #expect(answer.text.contains("no memory to decode the source came free"))
        #expect(try await harness.metric("trove_decode_memory_refusals_total", labels: "cause=\"deadline\"") == 1)
        #expect(try await harness.metric("trove_decode_memory_waiting") == 0)
    }

    @Test func aSourceOverTheWholeBudgetGets422NamingIt() async throws {
        let harness = try await Self.start(["/a.png": .file(Self.png, contentType: "image/png")]) {
            $0.pipeline.decodeMemoryBudget = 16 << 10
        }
        defer { Task { await harness.stop() } }
        let answer = try await harness.request(Self.thumbnail(harness, "/a.png"))
        #expect(answer.status == .unprocessableContent)
        #expect(answer.text == "the source is too large to decode within 16 KiB\n")
        #expect(answer.header(.retryAfter) == nil)
        #expect(try await harness.metric("trove_decode_memory_refusals_total", labels: "cause=\"too_large\"") == 1)
    }

    @Test func anAnimationOverTheDecodedBytesLimitIsTooLargeNotDamaged() async throws {
        // animated.gif: 5 frames of 24x20; room for 4 of them.
        let limit = 24 * 20 * 4 * 4
        let harness = try await Self.start(["/a.gif": .file(Self.animatedGIF, contentType: "image/gif")]) {
            $0.pipeline.decodeMemoryBudget = nil
            $0.pipeline.decodingLimits.maxDecodedBytes = limit
        }
        defer { Task { await harness.stop() } }
        let answer = try await harness.request(Self.thumbnail(harness, "/a.gif"))
        #expect(answer.status == .unprocessableContent)
        #expect(answer.text == "the source is too large to decode within 7.5 KiB\n")
    }

    /// A client that does not read holds its encoded answer, never decode memory: while the server is still
    /// writing a result larger than the socket buffers can take, the whole budget can be reserved at once.
    @Test func aSlowReaderHoldsItsAnswerNotDecodeMemory() async throws {
        // Noise compresses to nothing: an answer of about 6 MB, more than a 4 MiB send buffer (Linux's
        // largest by default) and a 4 KiB receive buffer hold.
        var generator = SplitMix64(seed: 7)
        let side = 1_500
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            let bits = generator.next()
            for channel in 0..<3 { pixels[index + channel] = UInt8(truncatingIfNeeded: bits >> (8 * channel)) }
        }
        let noise = try PluginRegistry.standard.encoder(named: "png").encode(
            Image(width: side, height: side, pixels: pixels), options: EncodingOptions(compressionLevel: 1))
        let harness = try await Self.start(["/noise.png": .file(noise, contentType: "image/png")]) {
            $0.pipeline.decodeMemoryBudget = 256 << 20
        }
        defer { Task { await harness.stop() } }
        let budget = try #require(harness.server.pipeline.decodeBudget)
        let reader = try RawConnection(port: harness.port, receiveBuffer: 4096)
        let path = Self.signer.signed("/rs:fit:1400:1400/plain/\(harness.origin.url("/noise.png"))@png")
        try reader.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(await reader.waitForFirstByte(within: .seconds(60)), "no answer began")

        // The answer has begun and the client has read none of it: every byte of the budget is free.
        let whole = try await budget.reserve(256 << 20, for: "probe", until: .now + .seconds(5))
        #expect(try await harness.metric("trove_decode_memory_reserved_bytes") == Double(256 << 20))
        whole.release()

        let (answer, closed) = await reader.readBytes(forAtMost: .seconds(60))
        #expect(closed)
        let headEnd = try #require(answer.indices.first { answer[$0...].starts(with: Array("\r\n\r\n".utf8)) })
        let head = String(decoding: answer[..<headEnd], as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        let length = try #require(
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) })
        #expect(answer.count - headEnd - 4 == length)
        #expect(length > 5 << 20, "\(length) bytes")
    }
}
