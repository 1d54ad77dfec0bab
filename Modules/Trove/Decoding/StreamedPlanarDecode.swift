import Foundation
import Synchronization
import TroveCore

/// A planar decode that keeps pace with its source's download: what a request's job gives the fetch it waits
/// on (`JobHandle.streamedDecode`), so the fetch's pieces are decoded as they arrive instead of after the last.
/// Speculative: the result is used only when the body it was fed is byte for byte the original the request
/// then gets (`result(for:)`); any other outcome (a retry, a redirect's body, a header that sends the result the
/// RGBA way, a damaged file, a disk or shared-tier hit) leaves the ordinary decode to run, and to report errors.
/// Only a fetch's first attempt is followed. A source of `DecodeThreads`' size is decoded on those threads, as
/// `process` would decode it, so its steps never hold the cooperative pool; a smaller one's steps are small
/// work for the pool. Until a piece arrives `gate` or more after the first one, it only keeps the pieces: a
/// body that arrives within the gate is left whole to the ordinary decode, as following it would save at most
/// that long for a few percent more CPU a request (docs/BENCHMARKS.md).
final class StreamedPlanarDecode: Sendable {
    /// The most of a body it keeps, before the gate opens or after: the fetch holds the body too, so past this
    /// it stops following (the ordinary decode takes the source) rather than hold more than this twice. A body
    /// that says it is longer (`expect`) is not followed at all.
    static let maxKeptBytes = 16 << 20

    /// How the decode starts, once enough of the body is here to say.
    enum Start {
        /// More of the body is needed to read the header.
        case wait
        /// Not a planar result, or not one to decode while it arrives.
        case giveUp
        /// Decode along this run, holding this reservation of the decode memory budget (nil without one), on
        /// these threads (nil: on the caller's, the cooperative pool).
        case begin(PlanarDecodeRun, DecodeReservation?, DecodeThreads?)
    }

    private struct State {
        /// The pieces the pump has taken, joined.
        var body = Data()
        /// Pieces not joined yet: until the gate opens, receiving a piece copies nothing.
        var pieces: [Data] = []
        /// The bytes of `pieces`.
        var keptBytes = 0
        var firstPiece: ContinuousClock.Instant?
        /// The gate opened and the decode began to follow the body.
        var started = false
        var attempts = 0
        var pump: Task<Void, Never>?
        var closed = false

        /// The body so far, joined.
        mutating func joined() -> Data {
            for piece in pieces { body.append(piece) }
            pieces = []
            keptBytes = 0
            return body
        }

        /// Stops following the body, letting go of it.
        mutating func close() {
            closed = true
            body = Data()
            pieces = []
            keptBytes = 0
        }
    }

    private let state = Mutex(State())
    private let worker: StreamedPlanarWorker
    private let gate: Duration

    /// A decode that `start` begins from the body so far (called again with more until it answers other than
    /// `.wait`), and whose pieces `advance` feeds, once a piece arrives `gate` or more after the first.
    init(
        gate: Duration, start: @escaping @Sendable (Data) async -> Start,
        advance: @escaping @Sendable (PlanarDecodeRun, Data, Bool) throws -> PlanarStreamProgress
    ) {
        self.gate = gate
        worker = StreamedPlanarWorker(start: start, advance: advance)
    }

    /// A fetch attempt begins: the first is followed; a second means the first's pieces were not the body.
    func beginAttempt() {
        let retried = state.withLock { state in
            state.attempts += 1
            return state.attempts > 1
        }
        if retried { close() }
    }

    /// The fetch's answer says how long its body is (Content-Length): one past `maxKeptBytes` is not followed,
    /// so no decode begins that would be dropped part way.
    func expect(_ length: Int64) {
        guard length > Self.maxKeptBytes else { return }
        close()
    }

    /// Takes the next piece of the body. Cheap: it keeps the piece, and at most starts a task.
    func receive(_ piece: Data) {
        let now = ContinuousClock.now
        let letGo = state.withLock { state -> (started: Bool, pump: Task<Void, Never>?)? in
            guard !state.closed else { return nil }
            state.pieces.append(piece)
            state.keptBytes += piece.count
            // Closed under the lock, so a pump between steps never joins a body past the limit.
            if state.body.count + state.keptBytes > Self.maxKeptBytes {
                state.close()
                return (state.started, state.pump)
            }
            let first = state.firstPiece ?? now
            state.firstPiece = first
            guard state.pump == nil, state.started || now - first >= gate else { return nil }
            state.started = true
            state.pump = Task { await self.pump() }
            return nil
        }
        if let letGo { closeWorker(started: letGo.started, after: letGo.pump) }
    }

    /// Decodes the body so far, again while more has arrived meanwhile.
    private func pump() async {
        while true {
            let body: Data? = state.withLock { state in
                guard !state.closed, !state.pieces.isEmpty else {
                    state.pump = nil
                    return nil
                }
                return state.joined()
            }
            guard let body else { return }
            // A decode that gave up (another format, a header that sends the result the RGBA way, a damaged
            // file) needs no more pieces.
            guard await worker.advance(body) else {
                state.withLock { state in
                    state.close()
                    state.pump = nil
                }
                return
            }
        }
    }

    /// The decode's result when `raw` is the body it was fed, finished with the body's end; nil otherwise,
    /// and the ordinary decode runs. Ends the decode either way.
    func result(for raw: RawResult) async -> PlanarDecode? {
        let (started, body, pump) = state.withLock { state in
            // Joined before the close, unless the decode stopped following the body (then `body` is empty).
            let body = state.started && !state.closed ? state.joined() : Data()
            defer { state.close() }
            return (state.started, body, state.pump)
        }
        // The body ended within the gate: nothing was decoded, and it is left whole to the ordinary decode.
        guard started else { return nil }
        await pump?.value
        guard raw.source == .network, body == raw.data else {
            await worker.close()
            return nil
        }
        return await worker.finish(raw.data)
    }

    /// Stops following the body and frees what the decode holds (its reservation included).
    func close() {
        let (started, pump) = state.withLock { state in
            state.close()
            return (state.started, state.pump)
        }
        closeWorker(started: started, after: pump)
    }

    /// Once `pump` has ended, frees what the decode holds, if it ever started.
    private func closeWorker(started: Bool, after pump: Task<Void, Never>?) {
        guard started else { return }
        Task {
            await pump?.value
            await worker.close()
        }
    }
}

/// Owns the decode, which is not shared between tasks: the actor runs one call at a time.
private actor StreamedPlanarWorker {
    private enum Phase {
        case waiting
        case decoding(PlanarDecodeRun)
        case ended
    }

    private let start: @Sendable (Data) async -> StreamedPlanarDecode.Start
    private let feed: @Sendable (PlanarDecodeRun, Data, Bool) throws -> PlanarStreamProgress
    private var phase = Phase.waiting
    private var reservation: DecodeReservation?
    private var threads: DecodeThreads?

    init(
        start: @escaping @Sendable (Data) async -> StreamedPlanarDecode.Start,
        advance: @escaping @Sendable (PlanarDecodeRun, Data, Bool) throws -> PlanarStreamProgress
    ) {
        self.start = start
        feed = advance
    }

    /// Decodes as far as `body` goes; false once the decode has ended (given up, declined, failed or closed).
    func advance(_ body: Data) async -> Bool {
        if case .waiting = phase {
            switch await start(body) {
            case .wait: return true
            case .giveUp:
                phase = .ended
                return false
            case let .begin(run, reservation, threads):
                // Closed while the reservation waited: give it straight back.
                guard case .waiting = phase else {
                    reservation?.release()
                    return false
                }
                self.reservation = reservation
                self.threads = threads
                phase = .decoding(run)
            }
        }
        guard case let .decoding(run) = phase else { return false }
        do {
            if try await step(run, body, isComplete: false) == .declined { close() }
        } catch {
            close()
        }
        if case .decoding = phase { return true }
        return false
    }

    /// Finishes the decode with the whole body. A caller cancelled meanwhile gets nil at once and the budget
    /// back, while the last step ends on its thread, as `process` treats a decode it abandons.
    func finish(_ data: Data) async -> PlanarDecode? {
        defer { close() }
        guard case let .decoding(run) = phase else { return nil }
        do {
            let decoded = try await step(run, data, isComplete: true) { try run.decoded($0, data: data) }
            if case .planes = decoded { return decoded }
        } catch {}
        return nil
    }

    /// Feeds `run` the body so far, then hands what it made to `then`: on the decode's threads when it has
    /// them. The actor waits meanwhile; only the pump and then `finish`, one after the other, call it.
    private func step<T: Sendable>(
        _ run: PlanarDecodeRun, _ body: Data, isComplete: Bool,
        then: @escaping @Sendable (PlanarStreamProgress) throws -> T
    ) async throws -> T {
        let feed = feed
        guard let threads else { return try then(feed(run, body, isComplete)) }
        return try await threads.run { try then(feed(run, body, isComplete)) }
    }

    private func step(_ run: PlanarDecodeRun, _ body: Data, isComplete: Bool) async throws -> PlanarStreamProgress {
        try await step(run, body, isComplete: isComplete) { $0 }
    }

    func close() {
        phase = .ended
        reservation?.release()
        reservation = nil
    }
}
