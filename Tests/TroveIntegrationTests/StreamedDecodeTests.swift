import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove
import TroveColor
import TroveCore
import TroveJPEG
import TroveTestSupport
import TroveTransformers

/// A JPEG source made into planes is decoded while it arrives from the origin (`StreamedPlanarDecode`): the
/// decode starts before the body ends, the result is byte for byte the one a decode of the whole file makes,
/// and anything that is not the first attempt's clean body (a retry, a damaged file, a cancelled request)
/// leaves the ordinary decode to answer, with nothing held after.
@Suite struct StreamedDecodeTests {
    static let spec = "resize:w=300,h=300,mode=fit"
    static let budget = 256 << 20

    /// A pipeline whose decode follows every body from its first piece (`streamedDecodeGate` zero), unless
    /// told otherwise; with colour management when `color` is set.
    static func pipeline(
        _ directory: URL, metrics: TestMetrics, retries: RetryPolicy = .none, gate: Duration? = .zero,
        color: Bool = false
    ) throws -> (ImagePipeline, PluginRegistry) {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        if color { try registry.install(TroveColorPlugin()) }
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.metricsFactory = metrics
        configuration.retryPolicy = retries
        configuration.decodeMemoryBudget = budget
        configuration.streamedDecodeGate = gate
        return (try ImagePipeline(registry: registry, configuration: configuration), registry)
    }

    static func request(_ url: URL, registry: PluginRegistry) throws -> ImageRequest {
        var request = ImageRequest(url: url, transforms: try registry.transformers(forSpec: spec))
        request.outputFormat = .jpeg
        return request
    }

    /// The result the ordinary decode makes of `source`: read from a file, whose fetch hands over no pieces.
    static func reference(_ source: Data, color: Bool = false) async throws -> Result<Data, TroveError> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-ref-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("source.jpg")
        try source.write(to: file)
        let metrics = TestMetrics()
        let (pipeline, registry) = try pipeline(
            directory.appendingPathComponent("cache"), metrics: metrics, color: color)
        defer { #expect(metrics.total("trove_results_streamed_decode_total") == 0) }
        let result: Result<Data, TroveError>
        do {
            result = .success(try await pipeline.image(for: request(file, registry: registry)).data)
        } catch let error as TroveError {
            result = .failure(error)
        }
        // The stores behind the answer, before the folder goes.
        await pipeline.flush()
        return result
    }

    static func source(_ name: String = "large-1001x667") throws -> Data {
        try Data(contentsOf: Fixtures.url("planar/\(name).jpg"))
    }

    /// A JPEG of 2600×1734 (4.5 MP, `DecodeThreads`' size) made by Pillow from a fixture photo.
    static func largeSource(_ kind: String) async throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-large-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("large.jpg")
        let result = try await runSubprocess(
            root.appendingPathComponent("scripts/pillow/python.sh"),
            [
                root.appendingPathComponent("scripts/pillow/make_large_jpeg.py").path,
                Fixtures.url("planar/large-1001x667.jpg").path, out.path, "2600", "1734", kind
            ])
        try #require(result.status == 0, "make_large_jpeg.py failed: \(result.stderr)")
        return try Data(contentsOf: out)
    }

    /// Paused at 60% of its body, the source's decode has begun (it holds its budget); opened, the result is
    /// the whole file's, made once, and the budget is given back.
    @Test(arguments: ["large-1001x667", "chelsea-420-progressive"])
    func aSourceIsDecodedWhileItArrives(_ name: String) async throws {
        try await Self.expectDecodedWhileArriving(try Self.source(name))
    }

    /// A source of 4 MP or more is followed too, its steps on `DecodeThreads` as its whole decode would run:
    /// a baseline file's rows and a progressive file's scans as they come, the last pass when the body ends.
    @Test(arguments: ["baseline", "progressive"])
    func aLargeSourceIsDecodedWhileItArrives(_ kind: String) async throws {
        let source = try await Self.largeSource(kind)
        let header = try #require(try JPEGDecoder().info(source))
        #expect(header.width * header.height >= DecodeThreads.largeSourcePixels)
        try await Self.expectDecodedWhileArriving(source)
    }

    /// A phone's photo, turned (EXIF orientation 6) and under Adobe RGB, is decoded while it arrives too, turned
    /// and converted at the output's size.
    @Test func aTurnedTaggedSourceIsDecodedWhileItArrives() async throws {
        let upright = try JPEGDecoder().decode(try Self.source(), limits: .default)
        let stored = try Transposition(undoing: .left).apply(to: upright, orientation: .right)
        let icc = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/AdobeRGB1998.icc")))
        let source = try #require(
            taggingJPEG(try JPEGEncoder().encode(stored, options: EncodingOptions(quality: 0.9)), icc: icc))
        try await Self.expectDecodedWhileArriving(source, color: true)
    }

    static func expectDecodedWhileArriving(_ source: Data, color: Bool = false) async throws {
        let gate = FixtureGate()
        try await withServerAndCache(["/photo.jpg": .pausedBody(source, pauseAfter: source.count * 6 / 10, gate: gate)])
        { server, directory in
            let metrics = TestMetrics()
            let (pipeline, registry) = try Self.pipeline(directory, metrics: metrics, color: color)
            let task = Task {
                try await pipeline.image(for: Self.request(server.url("/photo.jpg"), registry: registry))
            }
            #expect(await eventually { (pipeline.decodeBudget?.snapshot.reserved ?? 0) > 0 })
            #expect(metrics.total("trove_results_planar_total") == 0)
            gate.open()
            let response = try await task.value
            #expect(metrics.total("trove_results_streamed_decode_total") == 1)
            #expect(metrics.total("trove_results_planar_total") == 1)
            #expect(response.data == (try await Self.reference(source, color: color).get()))
            #expect(response.image.width == 300 && response.source == .network)
            #expect(await eventually { pipeline.decodeBudget?.snapshot.reserved == 0 })
        }
    }

    /// With `streamedDecodeGate` nil nothing is decoded before the body has ended.
    @Test func noGateMeansNoStreamedDecode() async throws {
        let source = try Self.source()
        let gate = FixtureGate()
        let route = FixtureServer.Route.pausedBody(source, pauseAfter: source.count / 2, gate: gate)
        try await withServerAndCache(["/photo.jpg": route]) { server, directory in
            let metrics = TestMetrics()
            let (pipeline, registry) = try Self.pipeline(directory, metrics: metrics, gate: nil)
            let task = Task {
                try await pipeline.image(for: Self.request(server.url("/photo.jpg"), registry: registry))
            }
            #expect(await eventually { server.requestCount(for: "/photo.jpg") == 1 })
            #expect(pipeline.decodeBudget?.snapshot.reserved == 0)
            gate.open()
            let response = try await task.value
            #expect(metrics.total("trove_results_streamed_decode_total") == 0)
            #expect(metrics.total("trove_results_planar_total") == 1)
            #expect(response.data == (try await Self.reference(source).get()))
        }
    }

    /// Served in many small pieces, the streamed result is again the whole file's.
    @Test func aSourceInSmallPiecesGivesTheSameResult() async throws {
        let source = try Self.source("chelsea-420-restart")
        try await withServerAndCache(["/photo.jpg": .slowBody(source, chunkSize: 1500, interval: .milliseconds(1))]) {
            server, directory in
            let metrics = TestMetrics()
            let (pipeline, registry) = try Self.pipeline(directory, metrics: metrics)
            let response = try await pipeline.image(for: Self.request(server.url("/photo.jpg"), registry: registry))
            #expect(metrics.total("trove_results_streamed_decode_total") == 1)
            #expect(response.data == (try await Self.reference(source).get()))
        }
    }

    /// A first attempt cut mid-body and a retry that brings it whole: the retry's body is decoded whole, not
    /// on top of the first attempt's pieces.
    @Test func aRetriedFetchIsDecodedWhole() async throws {
        let source = try Self.source()
        let routes: [String: FixtureServer.Route] = [
            "/photo.jpg": .sequence([
                .cutMidBody(source, after: source.count / 2), .file(source, contentType: "image/jpeg")
            ])
        ]
        try await withServerAndCache(routes) { server, directory in
            let metrics = TestMetrics()
            let (pipeline, registry) = try Self.pipeline(
                directory, metrics: metrics, retries: RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(1), jitter: 0)
            )
            let response = try await pipeline.image(for: Self.request(server.url("/photo.jpg"), registry: registry))
            #expect(server.requestCount(for: "/photo.jpg") == 2)
            #expect(metrics.total("trove_results_streamed_decode_total") == 0)
            #expect(metrics.total("trove_results_planar_total") == 1)
            #expect(response.data == (try await Self.reference(source).get()))
            #expect(await eventually { pipeline.decodeBudget?.snapshot.reserved == 0 })
        }
    }

    /// A file cut short fails with the ordinary decode's own error, and its decode lets go of its budget.
    @Test func aDamagedSourceFailsAsAWholeDecodeDoes() async throws {
        let damaged = Data(try Self.source().prefix(40_000))
        // Slowly enough that the decode follows the body (it is still arriving past `StreamedPlanarDecode.gate`).
        let route = FixtureServer.Route.slowBody(damaged, chunkSize: 4000, interval: .milliseconds(2))
        try await withServerAndCache(["/photo.jpg": route]) { server, directory in
            let metrics = TestMetrics()
            let (pipeline, registry) = try Self.pipeline(directory, metrics: metrics)
            let expected = try await Self.reference(damaged)
            guard case let .failure(error) = expected else {
                Issue.record("the damaged file decoded")
                return
            }
            await #expect(throws: error) {
                _ = try await pipeline.image(for: Self.request(server.url("/photo.jpg"), registry: registry))
            }
            #expect(metrics.total("trove_results_streamed_decode_total") == 0)
            #expect(await eventually { pipeline.decodeBudget?.snapshot.reserved == 0 })
        }
    }

    /// A request cancelled while its source is paused mid-body lets go of what its decode held.
    @Test func aCancelledRequestGivesBackItsBudget() async throws {
        let source = try Self.source()
        let gate = FixtureGate()
        try await withServerAndCache(["/photo.jpg": .pausedBody(source, pauseAfter: source.count / 2, gate: gate)]) {
            server, directory in
            let metrics = TestMetrics()
            let (pipeline, registry) = try Self.pipeline(directory, metrics: metrics)
            let task = Task {
                try await pipeline.image(for: Self.request(server.url("/photo.jpg"), registry: registry))
            }
            #expect(await eventually { (pipeline.decodeBudget?.snapshot.reserved ?? 0) > 0 })
            task.cancel()
            _ = try? await task.value
            #expect(await eventually { pipeline.decodeBudget?.snapshot.reserved == 0 })
            gate.open()
            #expect(metrics.total("trove_results_streamed_decode_total") == 0)
        }
    }
}
