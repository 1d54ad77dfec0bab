import Foundation
import Synchronization
import TroveCore
import TroveSupport

/// A planar decode that keeps pace with its source's download: what a request's job gives the fetch it waits on
/// (`JobHandle.streamedDecode`), so the fetch's pieces are decoded as they arrive instead of after the last. Beside
/// the fetch's copy of the body, it holds only the pieces the decode has not taken yet (at most `maxKeptBytes`),
/// and the decoder only what it will read again (the marker or MCU it stopped in). Speculative: the result is used
/// only when the bytes it was fed are the original the request then gets, by length and CRC-32 (`result(for:)`;
/// both come from one answer, so the check catches a mix-up, not a forgery); any other outcome (a retry, a
/// redirect's body, a header that sends the result the RGBA way, a damaged file, a disk or shared-tier hit) leaves
/// the ordinary decode to run, and to report errors. Only a fetch's first attempt is followed. A source of
/// `DecodeThreads`' size is decoded on those threads, as `process` would decode it, so its steps never hold the
/// cooperative pool; a smaller one's steps are small work for the pool. Until a piece arrives `gate` or more after
/// the first one, it only keeps the pieces: a body that arrives within the gate is left whole to the ordinary
/// decode, as following it would save at most that long for a few percent more CPU a request (docs/BENCHMARKS.md).
final class StreamedPlanarDecode: Sendable {
    /// The most of a body it holds that the decode has not taken yet: the pieces before the gate opens, or
    /// those that arrive faster than the decode goes. The fetch holds the body too, so past this it stops
    /// following (the ordinary decode takes the source) rather than hold more than this twice.
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
        /// Until the decode has begun, the body so far, joined (`start` reads the header from it).
        var prefix = Data()
        /// Pieces not taken yet: until the gate opens, receiving a piece copies nothing.
        var pieces: [Data] = []
        /// The bytes of `pieces`.
        var keptBytes = 0
        /// The bytes taken so far and their CRC-32 (the pump's to keep, or the end's once the pump is over), to
        /// know at the end that they were the original.
        var taken = 0
        var checksum: UInt32 = 0
        var firstPiece: ContinuousClock.Instant?
        /// The gate opened and the decode began to follow the body.
        var started = false
        /// The decode has begun: it is given only the bytes after those it had.
        var begun = false
        var attempts = 0
        var pump: Task<Void, Never>?
        var closed = false

        /// The bytes to give the decode next (before it has begun the body so far, after only the new ones), and
        /// the new ones, whose CRC-32 the taker adds to `checksum` outside the lock.
        mutating func take() -> (forDecode: Data, new: Data) {
            var new = Data()
            if pieces.count == 1 { new = pieces[0] } else { for piece in pieces { new.append(piece) } }
            pieces = []
            keptBytes = 0
            taken += new.count
            guard !begun else { return (new, new) }
            prefix.append(new)
            return (prefix, new)
        }

        /// Stops following the body, letting go of it.
        mutating func close() {
            closed = true
            prefix = Data()
            pieces = []
            keptBytes = 0
        }
    }

    private let state = Mutex(State())
    private let worker: StreamedPlanarWorker
    private let gate: Duration

    /// A decode that `start` begins from the body so far (called again with more until it answers other than
    /// `.wait`), and whose bytes `advance` feeds, from the first on, once a piece arrives `gate` or more after
    /// the first.
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

    /// Takes the next piece of the body. Cheap: it keeps the piece, and at most starts a task.
    func receive(_ piece: Data) {
        let now = ContinuousClock.now
        let letGo = state.withLock { state -> (started: Bool, pump: Task<Void, Never>?)? in
            guard !state.closed else { return nil }
            state.pieces.append(piece)
            state.keptBytes += piece.count
            // Closed under the lock, so a pump between steps never takes a body past the limit.
            if state.prefix.count + state.keptBytes > Self.maxKeptBytes {
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

    /// Gives the decode what has arrived, again while more arrives meanwhile.
    private func pump() async {
        while true {
            let taken = state.withLock { state -> (bytes: (forDecode: Data, new: Data), seed: UInt32)? in
                guard !state.closed, !state.pieces.isEmpty else {
                    state.pump = nil
                    return nil
                }
                return (state.take(), state.checksum)
            }
            guard let taken else { return }
            // Only the pump takes bytes while it runs, so the running checksum is its own to carry on.
            let checksum = CRC32.checksum(taken.bytes.new, seed: taken.seed)
            state.withLock { $0.checksum = checksum }
            switch await worker.advance(taken.bytes.forDecode) {
            case .waiting: break
            case .following:
                state.withLock { state in
                    state.begun = true
                    state.prefix = Data()
                }
            case .ended:
                // A decode that gave up (another format, a header that sends the result the RGBA way, a
                // damaged file) needs no more pieces.
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
        let (started, pump) = state.withLock { state in (state.started && !state.closed, state.pump) }
        // The body ended within the gate: nothing was decoded, and it is left whole to the ordinary decode.
        guard started else {
            close()
            return nil
        }
        // The pump's last bytes are decoded first; what came after them is the body's end.
        await pump?.value
        let end = state.withLock { state -> (rest: Data, taken: Int, seed: UInt32)? in
            defer { state.close() }
            guard !state.closed, state.begun else { return nil }
            return (state.take().new, state.taken, state.checksum)
        }
        guard let end, raw.source == .network, raw.data.count == end.taken,
            CRC32.checksum(raw.data) == CRC32.checksum(end.rest, seed: end.seed)
        else {
            await worker.close()
            return nil
        }
        return await worker.finish(end.rest, whole: raw.data)
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

    /// Where the decode stands after being given bytes.
    enum Standing {
        /// Not begun: `start` needs more of the body, which is to be given whole again.
        case waiting
        /// Decoding: only the bytes after these are to be given.
        case following
        /// Given up, declined, failed or closed.
        case ended
    }

    /// Before the decode has begun, `bytes` is the body so far, for `start`; after, the body's next bytes.
    func advance(_ bytes: Data) async -> Standing {
        if case .waiting = phase {
            switch await start(bytes) {
            case .wait: return .waiting
            case .giveUp:
                phase = .ended
                return .ended
            case let .begin(run, reservation, threads):
                // Closed while the reservation waited: give it straight back.
                guard case .waiting = phase else {
                    reservation?.release()
                    return .ended
                }
                self.reservation = reservation
                self.threads = threads
                phase = .decoding(run)
            }
        }
        guard case let .decoding(run) = phase else { return .ended }
        do {
            if try await step(run, bytes, isComplete: false) == .declined { close() }
        } catch {
            close()
        }
        if case .decoding = phase { return .following }
        return .ended
    }

    /// Finishes the decode with the body's last bytes, `rest`; `whole` is the body. A caller cancelled
    /// meanwhile gets nil at once and the budget back, while the last step ends on its thread, as `process`
    /// treats a decode it abandons.
    func finish(_ rest: Data, whole: Data) async -> PlanarDecode? {
        defer { close() }
        guard case let .decoding(run) = phase else { return nil }
        do {
            let decoded = try await step(run, rest, isComplete: true) { try run.decoded($0, data: whole) }
            if decoded.outputSize != nil { return decoded }
        } catch {}
        return nil
    }

    /// Feeds `run` the body's next bytes, then hands what it made to `then`: on the decode's threads when it has
    /// them. The actor waits meanwhile; only the pump and then `finish`, one after the other, call it.
    private func step<T: Sendable>(
        _ run: PlanarDecodeRun, _ bytes: Data, isComplete: Bool,
        then: @escaping @Sendable (PlanarStreamProgress) throws -> T
    ) async throws -> T {
        let feed = feed
        guard let threads else { return try then(feed(run, bytes, isComplete)) }
        return try await threads.run { try then(feed(run, bytes, isComplete)) }
    }

    private func step(_ run: PlanarDecodeRun, _ bytes: Data, isComplete: Bool) async throws -> PlanarStreamProgress {
        try await step(run, bytes, isComplete: isComplete) { $0 }
    }

    func close() {
        phase = .ended
        reservation?.release()
        reservation = nil
    }
}
