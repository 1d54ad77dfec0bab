import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import Trove
import TroveCodec
import TroveFetcher
import TroveServer

/// The limits a public proxy needs: the transform queue, coalescing, source size and pixels, and the
/// source rules (prefixes, loopback), each checked end to end.
@Suite struct LimitsTests {
    static let signer = URLSigner.test
    static let png = try! Data(contentsOf: TestImages.folder.appendingPathComponent("chelsea.png"))

    static func start(
        origin: FixtureServer, registry: PluginRegistry? = nil,
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ServerHarness {
        try await ServerHarness.start(origin: origin, registry: registry) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
            configure(&configuration)
        }
    }

    @Test func overTheLimitRequestsGet429AtOnce() async throws {
        let gate = FixtureGate()
        let origin = FixtureServer(routes: [
            "/held.png": .gated(Self.png, contentType: "image/png", gate: gate),
            "/other.png": .file(Self.png, contentType: "image/png")
        ])
        let harness = try await Self.start(origin: origin) {
            $0.maxConcurrency = 1
            $0.maxQueue = 0
        }
        defer { Task { await harness.stop() } }
        let held = Task {
            try await harness.request(Self.signer.signed("/rs:fit:20:20/plain/\(origin.url("/held.png"))@png"))
        }
        await gate.waitForArrivals(1)
        // The one slot is taken and there is no queue: the next request is refused without waiting.
        let refused = try await harness.request(
            Self.signer.signed("/rs:fit:20:20/plain/\(origin.url("/other.png"))@png"))
        #expect(refused.status == .tooManyRequests)
        #expect(refused.header(.retryAfter) == "1")
        #expect(refused.header(.cacheControl) == "no-store")
        #expect(origin.requestCount(for: "/other.png") == 0)
        gate.open()
        #expect(try await held.value.status == .ok)
        // With the slot free again, the refused URL is served.
        #expect(
            try await harness.request(Self.signer.signed("/rs:fit:20:20/plain/\(origin.url("/other.png"))@png")).status
                == .ok)
        #expect(try await harness.metric("trove_serve_rejected_total") == 1)
    }

    @Test func fiftyIdenticalRequestsMakeOneFetchAndOneTransform() async throws {
        let gate = FixtureGate()
        let origin = FixtureServer(routes: ["/once.png": .gated(Self.png, contentType: "image/png", gate: gate)])
        let decodes = Counter()
        var registry = try ServerHarness.registry()
        try registry.register(decoder: CountingDecoder(inner: PNGDecoder(), count: decodes), replacing: true)
        let harness = try await Self.start(origin: origin, registry: registry) { $0.maxConcurrency = 2 }
        defer { Task { await harness.stop() } }
        let path = Self.signer.signed("/rs:fit:100:100/plain/\(origin.url("/once.png"))@webp")

        let answers = Task {
            try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let response = try await harness.request(path)
                        return (response.status, response.header(.eTag))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // All 50 wait on the one piece of work before the origin answers.
        await gate.waitForArrivals(1)
        while try await harness.metric("trove_serve_shared_results_total") < 49 {
            try await Task.sleep(for: .milliseconds(10))
        }
        gate.open()
        let results = try await answers.value
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0.0 == .ok })
        #expect(Set(results.map(\.1)).count == 1)
        #expect(origin.requestCount(for: "/once.png") == 1)
        #expect(decodes.value == 1)
    }

    @Test func aFloodOfIdenticalRequestsPastMaxRequestsGets429() async throws {
        let gate = FixtureGate()
        let origin = FixtureServer(routes: [
            "/hot.png": .gated(Self.png, contentType: "image/png", gate: gate),
            "/other.png": .file(Self.png, contentType: "image/png")
        ])
        let harness = try await Self.start(origin: origin) { $0.maxRequests = 3 }
        defer { Task { await harness.stop() } }
        let hot = Self.signer.signed("/rs:fit:20:20/plain/\(origin.url("/hot.png"))@png")
        let waiting = (0..<3).map { _ in Task { try await harness.request(hot) } }
        await gate.waitForArrivals(1)
        while try await harness.metric("trove_serve_shared_results_total") < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Three requests are in progress, two of them only waiting on the first: the fourth is refused at
        // once, whatever it asks for.
        let refused = try await harness.request(
            Self.signer.signed("/rs:fit:20:20/plain/\(origin.url("/other.png"))@png"))
        #expect(refused.status == .tooManyRequests)
        #expect(origin.requestCount(for: "/other.png") == 0)
        gate.open()
        for request in waiting { #expect(try await request.value.status == .ok) }
        #expect(origin.requestCount(for: "/hot.png") == 1)
    }

    @Test func aSourceWhoseNameNeverResolvesGets504AtTheDeadline() async throws {
        // The fetch's own deadline starts after the lookup; the server's covers the whole wait.
        let resolver = HangingResolver()
        let harness = try await ServerHarness.start(resolver: resolver) {
            $0.keys = [Self.signer.key]
            $0.salts = [Self.signer.salt]
            $0.pipeline.requestDeadline = .milliseconds(300)
        }
        defer { Task { await harness.stop() } }
        let started = ContinuousClock.now
        let response = try await harness.request(
            Self.signer.signed("/rs:fit:20:20/plain/http://images.invalid/a.png@png"))
        #expect(response.status == .gatewayTimeout)
        #expect(response.text == "the image was not ready within the request deadline\n")
        #expect(ContinuousClock.now - started < .seconds(10))
        // The abandoned lookup was cancelled, not left running.
        await resolver.waitUntilCancelled()
    }

    @Test func aRequestedSizeOverTheResultLimitGets400BeforeAnyFetch() async throws {
        let origin = FixtureServer(routes: ["/a.png": .file(Self.png, contentType: "image/png")])
        let harness = try await Self.start(origin: origin) { $0.maxResultDimension = 500 }
        defer { Task { await harness.stop() } }
        let response = try await harness.request(
            Self.signer.signed("/rs:fit:400:0/dpr:2/plain/\(origin.url("/a.png"))@png"))
        #expect(response.status.code == 400)
        #expect(
            response.text
                == "the requested size is 800 pixels a side (dpr included), over this server's limit of 500; ask for a smaller size\n"
        )
        #expect(origin.requests.isEmpty)
    }

    @Test func aResultThatGrowsPastTheLimitGets422() async throws {
        let origin = FixtureServer(routes: ["/a.png": .file(Self.png, contentType: "image/png")])
        let harness = try await Self.start(origin: origin) { $0.maxResultDimension = 500 }
        defer { Task { await harness.stop() } }
        // Filling 400x400 from the 451x300 source scales it to 601x400 before the cut.
        let response = try await harness.request(
            Self.signer.signed("/rs:fill:400:400:1/plain/\(origin.url("/a.png"))@png"))
        #expect(response.status.code == 422)
        #expect(
            response.text
                == "the result would be 601x400 pixels, over this server's limit of 500 pixels a side; ask for a smaller size\n"
        )
        let within = try await harness.request(
            Self.signer.signed("/rs:fill:300:300:1/plain/\(origin.url("/a.png"))@png"))
        #expect(within.status == .ok)
    }

    @Test func hugePNGHeaderIsRefusedBeforeDecoding() async throws {
        let origin = FixtureServer(routes: [
            "/huge.png": .file(
                Self.hugePNG(width: 100_000, height: 100_000),
                contentType: "image/png")
        ])
        let harness = try await Self.start(origin: origin)
        defer { Task { await harness.stop() } }
        let response = try await harness.request(
            Self.signer.signed("/rs:fit:100:100/plain/\(origin.url("/huge.png"))@png"))
        #expect(response.status.code == 422)
        #expect(response.text == "the source image of 100000x100000 pixels is over the limit of 50000000 pixels\n")
    }

    @Test func sourceOverTheByteLimitGets413() async throws {
        let origin = FixtureServer(routes: ["/big.png": .file(Self.png, contentType: "image/png")])
        let harness = try await Self.start(origin: origin) { $0.pipeline.maxBytes = 1000 }
        defer { Task { await harness.stop() } }
        let response = try await harness.request(
            Self.signer.signed("/rs:fit:10:10/plain/\(origin.url("/big.png"))@png"))
        #expect(response.status.code == 413)
    }

    @Test func sourcesOutsideTheAllowedPrefixesAreRefusedWithoutAConnection() async throws {
        let origin = FixtureServer(routes: [
            "/images/a.png": .file(Self.png, contentType: "image/png"),
            "/imagesevil/a.png": .file(Self.png, contentType: "image/png"),
            "/other/a.png": .file(Self.png, contentType: "image/png")
        ])
        try await origin.start()
        let allowed = origin.url("/images/").absoluteString
        let harness = try await Self.start(origin: origin) { $0.allowedSources = [allowed] }
        defer { Task { await harness.stop() } }
        let port = origin.port!
        for refused in [
            "http://127.0.0.1:\(port)/other/a.png", "http://127.0.0.1:\(port)/imagesevil/a.png",
            "http://127.0.0.1:\(port)@127.0.0.1:\(port)/images/a.png",
            "http://2130706433:\(port)/images/a.png", "http://[::1]:\(port)/images/a.png"
        ] {
            let response = try await harness.request(Self.signer.signed("/rs:fit:10:10/plain/\(refused)@png"))
            #expect(response.status.code == 404, "\(refused)")
        }
        #expect(origin.requests.isEmpty)
        let ok = try await harness.request(Self.signer.signed("/rs:fit:10:10/plain/\(allowed)a.png@png"))
        #expect(ok.status == .ok)
    }

    @Test func loopbackSourcesAreRefusedUnlessAllowed() async throws {
        let origin = FixtureServer(routes: ["/a.png": .file(Self.png, contentType: "image/png")])
        let harness = try await Self.start(origin: origin) { $0.allowLoopbackSources = false }
        defer { Task { await harness.stop() } }
        let port = origin.port!
        for source in [
            "http://127.0.0.1:\(port)/a.png", "http://localhost:\(port)/a.png",
            "http://127.1:\(port)/a.png", "http://[::ffff:127.0.0.1]:\(port)/a.png"
        ] {
            let response = try await harness.request(Self.signer.signed("/rs:fit:10:10/plain/\(source)@png"))
            #expect(response.status.code == 404, "\(source)")
        }
        #expect(origin.requests.isEmpty)
    }

    /// A PNG whose header declares `width` x `height` and whose data is a few bytes: tiny to send, enormous
    /// if anyone tried to allocate it.
    static func hugePNG(width: UInt32, height: UInt32) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]
        return Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", idat)
                + chunk("IEND", []))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// A resolver with fixed answers, for made-up names; it records the names asked for.
final class FixedResolver: HostResolver {
    private let answers: [String: IPAddress]
    private let names = Mutex<[String]>([])

    init(_ answers: [String: String]) {
        self.answers = answers.compactMapValues(IPAddress.init)
    }

    /// Every name asked for, in order.
    var asked: [String] { names.withLock { $0 } }

    func addresses(of host: String) async throws -> [IPAddress] {
        names.withLock { $0.append(host) }
        guard let address = answers[host] else { throw HostResolutionError(host: host, reason: "not a test name") }
        return [address]
    }
}

/// A resolver whose lookups never answer until cancelled, as a DNS server that drops queries.
final class HangingResolver: HostResolver {
    private let cancellations: AsyncStream<Void>
    private let cancelled: AsyncStream<Void>.Continuation

    init() {
        (cancellations, cancelled) = AsyncStream.makeStream()
    }

    func addresses(of host: String) async throws -> [IPAddress] {
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            cancelled.yield()
            throw error
        }
        throw HostResolutionError(host: host, reason: "no answer")
    }

    /// Returns once a lookup has seen its cancellation.
    func waitUntilCancelled() async {
        for await _ in cancellations { return }
    }
}

/// Counts how often it is called.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// A decoder that counts decodes and hands them to another: proves how many transforms ran.
struct CountingDecoder: ImageDecoder {
    let inner: any ImageDecoder
    var leastReducingGap: Double { inner.leastReducingGap }
    var reducesByBlocks: Bool { inner.reducesByBlocks }
    let count: Counter
    var name: String { inner.name }
    var format: ImageFormat { inner.format }
    func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }
    func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        count.increment()
        return try inner.decode(data, limits: limits)
    }
    func decode(_ data: Data, options: DecodingOptions) throws -> Image {
        count.increment()
        return try inner.decode(data, options: options)
    }
    func info(_ data: Data) throws -> ImageInfo? { try inner.info(data) }
}
