import Foundation
import Synchronization
import Testing

@testable import TroveServer

/// The access log writes one line per record off the request path, and drops (and counts) rather than
/// waits when its buffer is full.
@Suite struct AccessLogTests {
    private static func record(_ path: String, status: Int = 200) -> AccessLog.Record {
        AccessLog.Record(
            time: Date(timeIntervalSince1970: 1_800_000_000), method: "GET", path: path, status: status,
            bytes: "1234", elapsed: .microseconds(2500))
    }

    @Test func eachRecordIsOneLineWithMethodPathStatusBytesAndTime() {
        let text = String(
            decoding: AccessLog.format([
                Self.record("/-/rs:fit:300:300/plain/a.png"), Self.record("/health", status: 404)
            ]), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == "2027-01-15T08:00:00Z GET /-/rs:fit:300:300/plain/a.png 200 1234 2.50ms")
        #expect(lines[1].hasSuffix(" GET /health 404 1234 2.50ms"))
    }

    /// The log is given the path as asked: the line has the signature taken out, and the time in
    /// milliseconds rounded to hundredths.
    @Test func aLineHasTheSignatureTakenOutAndRoundedMilliseconds() {
        var signed = Self.record("/Xy9_sig/rs:fit:300:300/plain/a.png")
        signed.elapsed = .microseconds(1_234_567)
        var quick = Self.record("/info/Xy9_sig/plain/a.png", status: 304)
        quick.elapsed = .nanoseconds(4_996)
        let lines = String(decoding: AccessLog.format([signed, quick]), as: UTF8.self).split(separator: "\n")
        #expect(
            lines == [
                "2027-01-15T08:00:00Z GET /-/rs:fit:300:300/plain/a.png 200 1234 1234.57ms",
                "2027-01-15T08:00:00Z GET /info/-/plain/a.png 304 1234 0.00ms"
            ])
    }

    @Test func writesWhatWasAppendedInOrderAndStopFlushes() {
        let written = Mutex<[UInt8]>([])
        let log = AccessLog(interval: .seconds(60), write: { bytes in written.withLock { $0 += bytes } })
        for index in 0..<5 { log.append(Self.record("/\(index)")) }
        // The writer sleeps for a minute: only stop() can have written these.
        log.stop()
        let lines = String(decoding: written.withLock { $0 }, as: UTF8.self).split(separator: "\n")
        #expect(lines.map { $0.split(separator: " ")[2] } == ["/0", "/1", "/2", "/3", "/4"])
        // After stop nothing more is kept.
        log.append(Self.record("/late"))
        #expect(log.droppedCount == 1)
    }

    /// An interval that brings nothing puts the writer to sleep (an idle server's log does not wake it every
    /// interval); the next record wakes it and is written an interval later.
    @Test func anIdleLogSleepsUntilTheNextRecord() async throws {
        let written = Mutex<[UInt8]>([])
        let log = AccessLog(interval: .milliseconds(20), write: { bytes in written.withLock { $0 += bytes } })
        func lines() -> Int { written.withLock { $0 }.filter { $0 == UInt8(ascii: "\n") }.count }
        log.append(Self.record("/first"))
        for _ in 0..<200 where lines() < 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(lines() == 1)
        let looksWhenWritten = log.looks
        // Twenty intervals with nothing to write: one look finds nothing, then the writer sleeps.
        try await Task.sleep(for: .milliseconds(400))
        #expect(log.looks - looksWhenWritten <= 2)
        log.append(Self.record("/second"))
        for _ in 0..<200 where lines() < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(lines() == 2)
        log.stop()
        #expect(String(decoding: written.withLock { $0 }, as: UTF8.self).contains(" GET /second 200 "))
    }

    /// `stop()` ends a sleeping writer at once, with what was appended written.
    @Test func stopWakesASleepingWriter() async throws {
        let written = Mutex<Int>(0)
        let log = AccessLog(interval: .milliseconds(20), write: { bytes in written.withLock { $0 += bytes.count } })
        log.append(Self.record("/only"))
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        log.stop()
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(written.withLock { $0 } > 0)
    }

    @Test func aFullBufferDropsAndCountsInsteadOfWaiting() {
        let written = Mutex<Int>(0)
        let drops = Atomic<Int>(0)
        let log = AccessLog(
            capacity: 3, interval: .seconds(60), write: { bytes in written.withLock { $0 += bytes.count } },
            onDrop: { drops.add(1, ordering: .relaxed) })
        for index in 0..<10 { log.append(Self.record("/\(index)")) }
        #expect(log.droppedCount == 7)
        #expect(drops.load(ordering: .relaxed) == 7)
        log.stop()
        #expect(written.withLock { $0 } > 0)
    }
}
