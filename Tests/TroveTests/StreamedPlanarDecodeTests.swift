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

    /// A JPEG of `width`×`height` with detail in every block, its planar decode's run for a 300 px fit (by a
    /// pipeline on `directory`), and the threads its probe sends it to.
    static func planarRun(width: Int, height: Int, directory: TemporaryDirectory) throws -> (
        source: Data, run: PlanarDecodeRun, threads: DecodeThreads?
    ) {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        let pipeline = try ImagePipeline(
            registry: registry, configuration: PipelineConfiguration(cacheDirectory: directory.url))
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
        let route = try #require(pipeline.planarRoute(for: request, key: pipeline.cacheKey(for: request), probe: probe))
        return (source, pipeline.decode.planarDecodeRun(for: request, route: route), probe.threads)
    }

    /// A large source's decode runs its steps on `DecodeThreads`, the last one too, as its whole decode would.
    @Test func aLargeSourcesStepsRunOnTheDecodeThreads() async throws {
        let directory = try TemporaryDirectory()
        let (source, run, threads) = try Self.planarRun(width: 2048, height: 2048, directory: directory)
        #expect(threads === DecodeThreads.shared)
        let steps = Mutex<[Bool]>([])
        let decode = StreamedPlanarDecode(
            gate: .zero, start: { _ in .begin(run, nil, .shared) },
            advance: { run, piece, isComplete in
                steps.withLock { $0.append(DecodeThreads.isCurrent) }
                return try run.advance(piece, isComplete: isComplete)
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

    /// The decode is given each byte once, in order: the body so far until it begins, then only what is new,
    /// pieces that came while its start was deciding included. Its planes are taken for the body it was fed,
    /// and not for one of that length with a byte changed.
    @Test func theDecodeIsGivenEachByteOnceAndChecksTheBody() async throws {
        let directory = try TemporaryDirectory()
        for altered in [false, true] {
            let (source, run, _) = try Self.planarRun(width: 640, height: 480, directory: directory)
            let fed = Mutex(Data())
            let shown = Shown()
            let decode = StreamedPlanarDecode(
                gate: .zero,
                start: { body in
                    shown.add(body.count)
                    guard body.count >= 5000 else { return .wait }
                    // As a wait for the decode budget would: more pieces arrive meanwhile.
                    try? await Task.sleep(for: .milliseconds(50))
                    return .begin(run, nil, nil)
                },
                advance: { run, piece, isComplete in
                    fed.withLock { $0.append(piece) }
                    return try run.advance(piece, isComplete: isComplete)
                })
            decode.beginAttempt()
            decode.receive(source[0..<3000])
            #expect(await eventually { shown.all == [3000] })
            decode.receive(source[3000..<6000])
            #expect(await eventually { shown.all == [3000, 6000] })
            for start in stride(from: 6000, to: source.count, by: 3000) {
                decode.receive(source[start..<min(start + 3000, source.count)])
            }
            #expect(await eventually { fed.withLock { $0.count } == source.count })
            #expect(shown.all == [3000, 6000])
            var raw = source
            if altered { raw[raw.count / 2] ^= 0x10 }
            let result = await decode.result(for: Self.raw(raw))
            #expect(fed.withLock { $0 } == source)
            if altered {
                #expect(result == nil)
            } else {
                guard case let .planes(planes, _) = result else {
                    Issue.record("no planes")
                    return
                }
                #expect(planes.width == 300 && planes.height == 225)
            }
        }
    }

    /// A body longer than `maxKeptBytes` is followed to its end while the decode keeps pace: only what the
    /// decode has not taken counts.
    @Test func aLongBodyIsFollowedWhileTheDecodeKeepsPace() async throws {
        let directory = try TemporaryDirectory()
        let (_, run, _) = try Self.planarRun(width: 640, height: 480, directory: directory)
        let fed = Mutex(0)
        let decode = StreamedPlanarDecode(
            gate: .zero, start: { _ in .begin(run, nil, nil) },
            advance: { _, piece, _ in
                fed.withLock { $0 += piece.count }
                return .needsMore
            })
        decode.beginAttempt()
        let piece = Data(count: 1 << 20)
        let total = StreamedPlanarDecode.maxKeptBytes + 4 * piece.count
        for sent in stride(from: piece.count, through: total, by: piece.count) {
            decode.receive(piece)
            let keptPace = await eventually { fed.withLock { $0 } == sent }
            #expect(keptPace, "\(sent) bytes sent")
            if !keptPace { break }
        }
        decode.close()
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
