import Foundation
import Synchronization
import TroveCore

/// The access log, off the request path: a request appends a record to a bounded buffer under a lock (no
/// formatting, no system call) and a thread of the log's own formats and writes what has gathered, many
/// lines to one write, every `interval`. An interval that brings nothing puts the thread to sleep until the
/// next record, so an idle server's log does not wake it. When the buffer is full a record is dropped and
/// counted, never waited for: a slow disk or a paused terminal must not slow the answers.
final class AccessLog: Sendable {
    /// One answered request.
    struct Record: Sendable {
        /// When it was answered.
        var time: Date
        var method: String
        /// The path as asked; its signature is taken out when the line is written (`ProxyResponder.redacted`).
        var path: String
        var status: Int
        /// The body's length as the `Content-Length` header says it ("0" for none).
        var bytes: String
        var elapsed: Duration
    }

    private struct State {
        var records: [Record] = []
        var dropped = 0
        var stopped = false
        /// The writer thread starts with the first record, so a server that never answers has none.
        var writing = false
        /// The writer found nothing for a whole interval and waits for a record to wake it.
        var sleeping = false
        /// Times the writer has looked at the buffer (tests: an idle log stops looking).
        var looks = 0
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let interval: Duration
    private let write: @Sendable ([UInt8]) -> Void
    private let onDrop: @Sendable () -> Void
    /// Signalled by the writer thread when it has written its last lines after `stop()`.
    private let finished = DispatchSemaphore(value: 0)
    /// Signalled by `stop()`, so the writer need not sleep out its interval, and by the record that ends the
    /// writer's sleep.
    private let wake = DispatchSemaphore(value: 0)

    /// A log of at most `capacity` unwritten records, written by `write` every `interval`; `onDrop` is
    /// called for each record that did not fit.
    init(
        capacity: Int = 16_384, interval: Duration = .milliseconds(50),
        write: @escaping @Sendable ([UInt8]) -> Void = AccessLog.writeToStandardError,
        onDrop: @escaping @Sendable () -> Void = {}
    ) {
        self.capacity = max(1, capacity)
        self.interval = interval
        self.write = write
        self.onDrop = onDrop
    }

    /// Adds a record, or drops it when `capacity` records wait to be written.
    func append(_ record: Record) {
        let (kept, startWriter, wakeWriter) = state.withLock { state -> (Bool, Bool, Bool) in
            guard state.records.count < capacity, !state.stopped else {
                state.dropped += 1
                return (false, false, false)
            }
            state.records.append(record)
            defer {
                state.writing = true
                state.sleeping = false
            }
            return (true, !state.writing, state.sleeping)
        }
        if !kept { onDrop() }
        if wakeWriter { wake.signal() }
        if startWriter {
            let thread = Thread { [self] in drainUntilStopped() }
            thread.name = "trove-access-log"
            thread.start()
        }
    }

    /// Records dropped so far because the buffer was full.
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Times the writer thread has looked for records so far.
    var looks: Int { state.withLock { $0.looks } }

    /// Writes what is buffered and ends the writer thread; later records are dropped.
    func stop() {
        let writerRunning = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped && state.writing
        }
        if writerRunning {
            // Twice: a sleeping writer wakes from its sleep and then from its interval at once. A signal it
            // does not take is left in a semaphore nothing waits on again.
            wake.signal()
            wake.signal()
            finished.wait()
        }
    }

    private func drainUntilStopped() {
        while true {
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(interval.nanoseconds)))
            let (records, stopped, sleeps) = state.withLock { state -> ([Record], Bool, Bool) in
                state.looks += 1
                var taken: [Record] = []
                taken.reserveCapacity(state.records.count)
                swap(&taken, &state.records)
                // Nothing came for a whole interval: sleep until a record comes (`append` signals).
                state.sleeping = taken.isEmpty && !state.stopped
                return (taken, state.stopped, state.sleeping)
            }
            if !records.isEmpty { write(Self.format(records)) }
            if stopped {
                finished.signal()
                return
            }
            if sleeps { wake.wait() }
        }
    }

    /// One line a record: time, method, path (without its signature), status, bytes and milliseconds,
    /// space-separated. The time's text is made once per second of records, not once per line.
    static func format(_ records: [Record]) -> [UInt8] {
        var text = ""
        text.reserveCapacity(records.count * 120)
        var second = Int.min
        var timeText = ""
        for record in records {
            let recordSecond = Int(record.time.timeIntervalSince1970.rounded(.down))
            if recordSecond != second {
                second = recordSecond
                timeText = Date(timeIntervalSince1970: Double(recordSecond)).formatted(.iso8601)
            }
            // Hundredths of a millisecond, rounded, written as a decimal without Foundation's formatter.
            let (seconds, attoseconds) = record.elapsed.components
            let hundredths = seconds * 100_000 + (attoseconds + 5_000_000_000_000) / 10_000_000_000_000
            let fraction = hundredths % 100
            text += timeText
            text += " \(record.method) \(ProxyResponder.redacted(record.path)) \(record.status) \(record.bytes) "
            text += "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)ms\n"
        }
        return Array(text.utf8)
    }

    /// Writes to standard error, as the server's other log lines go.
    static let writeToStandardError: @Sendable ([UInt8]) -> Void = { bytes in
        FileHandle.standardError.write(Data(bytes))
    }
}
