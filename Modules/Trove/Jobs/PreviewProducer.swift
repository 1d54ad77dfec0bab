import Foundation
import Synchronization
import TroveCore

/// What a waiter that wants previews gives the fetch it waits on: how often, how to decode, where to send them.
struct PreviewRequest: Sendable {
    /// The least time between two previews.
    let interval: Duration
    /// The incremental decoder for a body that starts with these bytes; nil when its format has none.
    let makeDecoder: @Sendable (Data) -> (any IncrementalImageDecoder)?
    /// Receives each preview (the waiter applies its transforms and emits the event).
    let deliver: @Sendable (Image) -> Void
}

/// Turns the pieces of one download (one attempt of it) into previews. It keeps the body so far; when a
/// piece arrives while no decode is running and the last preview is at least `interval` old, it hands the
/// body to the format's incremental decoder on a task, so the fetcher's thread never waits for a decode.
/// `finish()` stops it and waits for a decode under way, so no preview comes after the final result.
final class PreviewProducer: Sendable {
    private struct State {
        var body = Data()
        var running: Task<Void, Never>?
        var lastPreview: ContinuousClock.Instant?
        var stopped = false
    }

    private let state = Mutex(State())
    private let worker: PreviewWorker
    private let interval: Duration
    private let deliver: @Sendable (Image) -> Void

    init(
        interval: Duration, makeDecoder: @escaping @Sendable (Data) -> (any IncrementalImageDecoder)?,
        deliver: @escaping @Sendable (Image) -> Void
    ) {
        self.interval = interval
        self.deliver = deliver
        worker = PreviewWorker(makeDecoder: makeDecoder)
    }

    /// Takes the next piece of the body. Cheap: an append, and at most the start of a task.
    func receive(_ piece: Data) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard !state.stopped else { return }
            state.body.append(piece)
            guard state.running == nil, state.lastPreview.map({ now - $0 >= interval }) ?? true else { return }
            // The snapshot shares the body's storage; the next append copies it, once per decode at most.
            let body = state.body
            state.running = Task { await self.decode(body) }
        }
    }

    /// Stops previewing and waits for a decode under way (and its delivery) to end.
    func finish() async {
        let running = state.withLock { state in
            state.stopped = true
            state.body = Data()
            return state.running
        }
        await running?.value
    }

    private func decode(_ body: Data) async {
        let image = await worker.preview(body)
        // Delivered before `running` is cleared, so `finish()` also waits for the delivery.
        if let image { deliver(image) }
        state.withLock { state in
            state.running = nil
            if image != nil { state.lastPreview = .now }
        }
    }
}

/// Owns one body's incremental decoder, which is not shared between tasks: the actor runs one call at a time.
private actor PreviewWorker {
    private let makeDecoder: @Sendable (Data) -> (any IncrementalImageDecoder)?
    private var decoder: (any IncrementalImageDecoder)?
    private var gaveUp = false

    init(makeDecoder: @escaping @Sendable (Data) -> (any IncrementalImageDecoder)?) {
        self.makeDecoder = makeDecoder
    }

    func preview(_ body: Data) -> Image? {
        guard !gaveUp else { return nil }
        if decoder == nil {
            // Decoders recognise their format from the first bytes: wait until there are enough to tell.
            guard body.count >= ImageFormat.sniffLength else { return nil }
            decoder = makeDecoder(body)
            if decoder == nil {
                gaveUp = true
                return nil
            }
        }
        do {
            return try decoder?.preview(body)
        } catch {
            // No more previews of a body that fails (too large, damaged); the full decode reports why.
            gaveUp = true
            return nil
        }
    }
}
