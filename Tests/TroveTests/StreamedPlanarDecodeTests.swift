import Foundation
import Synchronization
import Testing
import TroveCore
import TroveJPEG
import TroveTestSupport

@testable import Trove

/// When a streamed decode starts, and what it hands back when it cannot use what it was fed
/// (`StreamedPlanarDecode`; the decode itself is tested through a pipeline in StreamedDecodeTests).
@Suite struct StreamedPlanarDecodeTests {
    /// The lengths of the bodies a decode's start was shown.
    final class Shown: Sendable {
        private let lengths = Mutex<[Int]>([])
        func add(_ length: Int) { lengths.withLock { $0.append(length) } }
        var all: [Int] { lengths.withLock { $0 } }
    }

    /// A decode whose start only notes the bodies it is shown, and waits for more or gives up.
    static func decode(gate: Duration, waits: Bool, shown: Shown) -> StreamedPlanarDecode {
        StreamedPlanarDecode(
            gate: gate,
            start: { body in
                shown.add(body.count)
                return waits ? .wait : .giveUp
            },
            advance: { _, _, _ in .needsMore })
    }

    static let body = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0) })

    static func raw(_ data: Data = body, source: ResultSource = .network) -> RawResult {
        RawResult(data: data, source: source, contentType: "image/jpeg")
    }

    /// A body whose pieces all come before the gate opens is never looked at: the ordinary decode takes it.
    @Test func aBodyFasterThanTheGateIsLeftToTheOrdinaryDecode() async {
        let shown = Shown()
        let decode = Self.decode(gate: .seconds(3600), waits: false, shown: shown)
        decode.beginAttempt()
        for start in stride(from: 0, to: 3000, by: 1000) { decode.receive(Self.body[start..<start + 1000]) }
        #expect(await decode.result(for: Self.raw()) == nil)
        #expect(shown.all.isEmpty)
    }

    /// Past the gate the body so far is shown to `start`, growing, until it answers other than `.wait`.
    @Test func pastTheGateTheBodySoFarIsShownUntilTheStartDecides() async {
        let shown = Shown()
        let decode = Self.decode(gate: .zero, waits: true, shown: shown)
        decode.beginAttempt()
        decode.receive(Self.body[0..<1000])
        #expect(await eventually { shown.all == [1000] })
        decode.receive(Self.body[1000..<3000])
        #expect(await eventually { shown.all.last == 3000 })
        #expect(await decode.result(for: Self.raw()) == nil)
        #expect(shown.all.allSatisfy { $0 == 1000 || $0 == 3000 })
    }

    /// A large source's decode runs its steps on `DecodeThreads`, the last one too, as its whole decode would.
    @Test func aLargeSourcesStepsRunOnTheDecodeThreads() async throws {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        let directory = try TemporaryDirectory()
        let pipeline = try ImagePipeline(
            registry: registry, configuration: PipelineConfiguration(cacheDirectory: directory.url))
        let (width, height) = (2048, 2048)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(truncatingIfNeeded: x ^ y)
                pixels[i + 1] = UInt8(truncatingIfNeeded: x &* 3)
                pixels[i + 2] = UInt8(truncatingIfNeeded: y)
            }
        }
        let source = try JPEGEncoder().encode(
            Image(width: width, height: height, pixels: pixels), options: EncodingOptions(quality: 0.8))
        var request = ImageRequest(
            url: URL(string: "https://example.com/large.jpg")!,
            transforms: try registry.transformers(forSpec: "resize:w=300,h=300,mode=fit"))
        request.outputFormat = .jpeg
        let probe = SourceProbe(source, decoder: JPEGDecoder())
        #expect(probe.threads === DecodeThreads.shared)
        let route = try #require(pipeline.planarRoute(for: request, key: pipeline.cacheKey(for: request), probe: probe))
        let run = pipeline.decode.planarDecodeRun(for: request, route: route)
        let steps = Mutex<[Bool]>([])
        let decode = StreamedPlanarDecode(
            gate: .zero, start: { _ in .begin(run, nil, .shared) },
            advance: { run, body, isComplete in
                steps.withLock { $0.append(DecodeThreads.isCurrent) }
                return try run.advance(body, isComplete: isComplete)
            })
        decode.beginAttempt()
        let half = source.count / 2
        decode.receive(source[0..<half])
        #expect(await eventually { steps.withLock { !$0.isEmpty } })
        decode.receive(source[half...])
        let planes = await decode.result(for: Self.raw(source))
        guard case let .planes(planes, _) = planes else {
            Issue.record("no planes")
            return
        }
        #expect(planes.width == 300 && planes.height == 300)
        let onDecodeThreads = steps.withLock { $0 }
        #expect(onDecodeThreads.count >= 2 && onDecodeThreads.allSatisfy { $0 }, "\(onDecodeThreads)")
    }

    /// A second attempt means the first one's pieces were not the body: nothing more is shown.
    @Test func aSecondAttemptEndsTheDecode() async {
        let shown = Shown()
        let decode = Self.decode(gate: .zero, waits: true, shown: shown)
        decode.beginAttempt()
        decode.receive(Self.body[0..<1000])
        #expect(await eventually { shown.all.count == 1 })
        decode.beginAttempt()
        decode.receive(Self.body[1000..<3000])
        #expect(await decode.result(for: Self.raw()) == nil)
        #expect(shown.all == [1000])
    }

    /// A decode that gave up (another format, a header that sends the result the RGBA way) is not started again
    /// by later pieces.
    @Test func aDecodeThatGivesUpIsNotStartedAgain() async {
        let shown = Shown()
        let decode = Self.decode(gate: .zero, waits: false, shown: shown)
        decode.beginAttempt()
        decode.receive(Self.body[0..<1000])
        #expect(await eventually { shown.all == [1000] })
        decode.receive(Self.body[1000..<3000])
        #expect(await decode.result(for: Self.raw()) == nil)
        #expect(shown.all == [1000])
    }

    /// A body that grows past `maxKeptBytes` while it is followed is let go: no more of it is decoded or kept,
    /// and the ordinary decode takes it.
    @Test func aBodyThatGrowsPastTheLimitIsLetGo() async throws {
        let shown = Shown()
        let decode = Self.decode(gate: .zero, waits: true, shown: shown)
        decode.beginAttempt()
        decode.receive(Self.body)
        #expect(await eventually { shown.all == [Self.body.count] })
        let large = Data(count: StreamedPlanarDecode.maxKeptBytes)
        decode.receive(large)
        decode.receive(Self.body)
        #expect(await decode.result(for: Self.raw(Self.body + large + Self.body)) == nil)
        #expect(shown.all == [Self.body.count])
    }

    /// A body whose answer says it is longer than `maxKeptBytes` is never followed.
    @Test func aBodyThatSaysItIsTooLongIsNotFollowed() async throws {
        let shown = Shown()
        let decode = Self.decode(gate: .zero, waits: true, shown: shown)
        decode.beginAttempt()
        decode.expect(Int64(StreamedPlanarDecode.maxKeptBytes) + 1)
        decode.receive(Self.body)
        try await Task.sleep(for: .milliseconds(20))
        #expect(await decode.result(for: Self.raw()) == nil)
        #expect(shown.all.isEmpty)
    }

    /// A body past `maxKeptBytes` before the gate opens is not followed: it would be held twice.
    @Test func aLargeBodyIsNotKeptWhileTheGateIsShut() async throws {
        let shown = Shown()
        let decode = Self.decode(gate: .milliseconds(50), waits: true, shown: shown)
        decode.beginAttempt()
        let large = Data(count: StreamedPlanarDecode.maxKeptBytes + 1)
        decode.receive(large)
        try await Task.sleep(for: .milliseconds(60))
        decode.receive(Self.body)
        #expect(await decode.result(for: Self.raw(large + Self.body)) == nil)
        #expect(shown.all.isEmpty)
    }
}
