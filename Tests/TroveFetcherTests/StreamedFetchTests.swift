import FixtureServer
import Foundation
import Synchronization
import Testing
import TroveCore
import TroveFetcher

/// Keeps what a fetch hands it, in order: the response it began with and every piece of the body.
private final class RecordingSink: FetchBodySink {
    private struct State {
        var began: [ResponseMetadata] = []
        var pieces: [Data] = []
    }
    private let state = Mutex(State())
    /// When set, `write` throws it once this many bytes have been taken.
    private let failure: (after: Int, error: TroveError)?

    init(failing failure: (after: Int, error: TroveError)? = nil) {
        self.failure = failure
    }

    func begin(_ response: ResponseMetadata) throws {
        state.withLock { $0.began.append(response) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try state.withLock { state throws in
            if let failure, state.pieces.reduce(0, { $0 + $1.count }) >= failure.after { throw failure.error }
            state.pieces.append(Data(bytes))
        }
    }

    var began: [ResponseMetadata] { state.withLock { $0.began } }
    var body: Data { state.withLock { $0.pieces.reduce(into: Data()) { $0.append($1) } } }
    var received: Int { state.withLock { $0.pieces.reduce(0) { $0 + $1.count } } }
}

/// `Fetcher.fetch(_:into:progress:)`: the body goes to the sink as it arrives and is never collected.
@Suite(.timeLimit(.minutes(1)))
struct StreamedFetchTests {
    private static let body = patternData(count: 1_000)

    /// The server sends 250 bytes and waits at the gate: the sink must hold those 250 bytes while the
    /// fetch is still waiting for the rest, and the outcome carries the length, not the bytes.
    @Test func theSinkGetsEachPieceAsItArrives() async throws {
        let gate = FixtureGate()
        try await withServer(["/paused": .pausedBody(Self.body, pauseAfter: 250, gate: gate)]) { server in
            let sink = RecordingSink()
            let heldAtGate = Mutex<Int?>(nil)
            let outcome = try await HTTPFetcher().fetch(FetchRequest(url: server.url("/paused")), into: sink) {
                progress in
                if progress.received >= 250, progress.received < 1_000 {
                    heldAtGate.withLock { $0 = $0 ?? sink.received }
                    gate.open()
                }
            }
            guard case let .streamed(metadata, length) = outcome else { Issue.record("expected a body"); return }
            #expect(heldAtGate.withLock { $0 } == 250)
            #expect(length == 1_000)
            #expect(sink.body == Self.body)
            #expect(sink.began.count == 1)
            #expect(sink.began.first?.contentType == metadata.contentType)
            #expect(metadata.statusCode == 200)
        }
    }

    @Test func aRedirectsBodyAndAnErrorsBodyNeverReachTheSink() async throws {
        try await withServer([
            "/moved": .response(status: 302, headers: ["Location": "/final"], body: Data(repeating: 0x41, count: 500)),
            "/final": .file(Self.body, contentType: "application/octet-stream"),
            "/missing": .status(404)
        ]) { server in
            let sink = RecordingSink()
            let outcome = try await HTTPFetcher().fetch(FetchRequest(url: server.url("/moved")), into: sink)
            guard case let .streamed(_, length) = outcome else { Issue.record("expected a body"); return }
            #expect(length == 1_000 && sink.body == Self.body && sink.began.count == 1)

            let refused = RecordingSink()
            await #expect(throws: TroveError.httpStatus(404, url: server.url("/missing").absoluteString)) {
                _ = try await HTTPFetcher().fetch(FetchRequest(url: server.url("/missing")), into: refused)
            }
            #expect(refused.began.isEmpty && refused.received == 0)
        }
    }

    /// Without a Content-Length the limit is checked as pieces arrive: no piece past it reaches the sink.
    @Test func aChunkedBodyOverTheLimitStopsBeforeThePieceThatCrossesIt() async throws {
        let big = patternData(count: 200_000)
        try await withServer(["/chunked": .cutMidBody(big, after: big.count)]) { server in
            let url = server.url("/chunked")
            let sink = RecordingSink()
            await #expect(throws: TroveError.tooLarge(url: url.absoluteString, limit: 50_000)) {
                _ = try await HTTPFetcher().fetch(FetchRequest(url: url, maxBytes: 50_000), into: sink)
            }
            #expect(sink.received <= 50_000)
            #expect(sink.body == big.prefix(sink.received))
        }
    }

    @Test func aSinkThatThrowsEndsTheFetchWithItsError() async throws {
        let big = patternData(count: 200_000)
        try await withServer(["/big": .slowBody(big, chunkSize: 20_000, interval: .milliseconds(1))]) { server in
            let full = TroveError.diskFull(path: "/cache/tmp/entry")
            let sink = RecordingSink(failing: (after: 1, error: full))
            await #expect(throws: full) {
                _ = try await HTTPFetcher().fetch(FetchRequest(url: server.url("/big")), into: sink)
            }
            #expect(sink.received < big.count)
        }
    }

    /// Fetchers that get their body all at once hand it to the sink in one piece.
    @Test func aFetcherWithoutStreamingHandsTheWholeBodyOver() async throws {
        let url = try #require(URL(string: "data:application/octet-stream;base64,\(Self.body.base64EncodedString())"))
        let sink = RecordingSink()
        let outcome = try await DataURLFetcher().fetch(FetchRequest(url: url), into: sink)
        guard case let .streamed(metadata, length) = outcome else { Issue.record("expected a body"); return }
        #expect(length == 1_000 && sink.body == Self.body && sink.began == [metadata])
    }
}
