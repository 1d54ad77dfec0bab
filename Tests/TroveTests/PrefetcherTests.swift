import Foundation
import Synchronization
import Testing
import Trove

/// A prefetch target that answers from a script: URLs whose path names a source, "fail" for a 404, and
/// "hold" for a URL that waits until it is cancelled. It records how many ran at once.
private final class ScriptedTarget: PrefetchTarget {
    private struct State {
        var running = 0
        var mostAtOnce = 0
        var started: [String] = []
        var flushes = 0
        /// Whether every call had returned when `flush` was called.
        var flushedAfterAll = true
        /// Calls wait until this many have run at once (or ten seconds pass). Waiting for the high-water
        /// mark, not the current count, lets the last calls of a batch, which have no one left to overlap, go.
        var gate = 0
    }

    private let state = Mutex(State())

    var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }
    var started: [String] { state.withLock { $0.started } }
    var flushes: Int { state.withLock { $0.flushes } }
    var flushedAfterAll: Bool { state.withLock { $0.flushedAfterAll } }

    /// Each call waits until `count` calls have run at once: a prefetch running fewer would keep them waiting.
    init(gate count: Int = 0) {
        state.withLock { $0.gate = count }
    }

    func prefetch(_ url: URL, priority: RequestPriority, destination: PrefetchDestination, retryFailed: Bool)
        async throws -> PrefetchedItem
    {
        state.withLock { state in
            state.running += 1
            state.mostAtOnce = max(state.mostAtOnce, state.running)
            state.started.append(url.lastPathComponent)
        }
        defer { state.withLock { $0.running -= 1 } }
        let waitEnds = ContinuousClock.now + .seconds(10)
        while state.withLock({ $0.mostAtOnce < $0.gate }) && ContinuousClock.now < waitEnds {
            try await Task.sleep(for: .milliseconds(1))
        }
        // A pause, so the workers overlap as network fetches do.
        try await Task.sleep(for: .milliseconds(2))
        switch url.pathComponents.dropFirst().first {
        case "network": return PrefetchedItem(source: .network, bytes: 100)
        case "disk": return PrefetchedItem(source: .disk, bytes: 10)
        case "shared": return PrefetchedItem(source: .shared, bytes: 1)
        case "hold":
            try await Task.sleep(for: .seconds(60))
            return PrefetchedItem(source: .network, bytes: 0)
        default: throw TroveError.httpStatus(404, url: url.absoluteString)
        }
    }

    func flush() async {
        state.withLock { state in
            state.flushes += 1
            state.flushedAfterAll = state.flushedAfterAll && state.running == 0
        }
    }
}

@Suite struct PrefetcherTests {
    func urls(_ paths: [String]) -> [URL] {
        paths.enumerated().map { URL(string: "http://origin.test/\($1)/\($0).png")! }
    }

    @Test func everyURLIsCountedOnceWithProgressInOrderAndFailuresInInputOrder() async {
        let target = ScriptedTarget()
        let paths = (0..<40).map { ["network", "disk", "shared", "fail"][$0 % 4] }
        let reports = Mutex<[PrefetchProgress]>([])
        let summary = await Prefetcher(target: target, concurrency: 3).prefetch(urls(paths)) { progress in
            reports.withLock { $0.append(progress) }
        }
        #expect(summary.total == 40 && summary.fetched == 10 && summary.cached == 20 && summary.shared == 10)
        #expect(summary.failed == 10 && summary.bytes == 10 * 100 + 10 * 10 + 10 * 1)
        #expect(
            summary.failures.map(\.url)
                == urls(paths).enumerated().filter { $0.offset % 4 == 3 }.map(\.element.absoluteString))
        #expect(summary.failures.allSatisfy { $0.error.contains("404") })
        // One report per URL, counting up, the bytes never going back.
        let seen = reports.withLock { $0 }
        #expect(seen.map(\.done) == Array(1...40))
        #expect(seen.allSatisfy { $0.total == 40 })
        // Each report names the URL that finished: every URL once, a failure with its error and no item.
        #expect(seen.map(\.finished.url.absoluteString).sorted() == urls(paths).map(\.absoluteString).sorted())
        #expect(seen.filter { $0.finished.error != nil }.count == 10)
        #expect(seen.allSatisfy { ($0.finished.error == nil) == ($0.finished.item != nil) })
        #expect(seen.filter { $0.finished.item?.source == .network }.allSatisfy { $0.finished.item?.bytes == 100 })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytes <= $1.bytes } && seen.last?.bytes == summary.bytes)
        // Each URL started once, never more than `concurrency` at a time; then one flush, after them all.
        #expect(target.started.sorted() == urls(paths).map(\.lastPathComponent).sorted())
        #expect(target.mostAtOnce <= 3)
        #expect(target.flushes == 1 && target.flushedAfterAll)
    }

    /// Every call waits until three run at once, so this finishes at once only if the prefetch runs three.
    @Test func itRunsConcurrencyURLsAtOnce() async {
        let target = ScriptedTarget(gate: 3)
        let started = ContinuousClock.now
        let summary = await Prefetcher(target: target, concurrency: 3).prefetch(
            urls(Array(repeating: "disk", count: 6)))
        #expect(summary.cached == 6)
        #expect(target.mostAtOnce == 3)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// A progress handler that blocks holds up neither the fetches nor the threads they run on.
    @Test func aSlowProgressHandlerDoesNotHoldUpTheFetches() async {
        let target = ScriptedTarget()
        let list = urls(Array(repeating: "network", count: 30))
        let startedWhenFirstReportEnded = Mutex<Int?>(nil)
        let summary = await Prefetcher(target: target, concurrency: 3).prefetch(list) { _ in
            guard startedWhenFirstReportEnded.withLock({ $0 == nil }) else { return }
            // Blocks its thread until every URL has started, or 30 seconds pass (a loaded machine's other
            // tests share the cooperative pool's threads with the fetches).
            let waitEnds = Date().addingTimeInterval(30)
            while target.started.count < list.count && Date() < waitEnds { usleep(1_000) }
            startedWhenFirstReportEnded.withLock { $0 = target.started.count }
        }
        #expect(summary.fetched == 30)
        #expect(startedWhenFirstReportEnded.withLock { $0 } == 30)
    }

    @Test func anEmptyListFlushesAndCountsNothing() async {
        let target = ScriptedTarget()
        let summary = await Prefetcher(target: target).prefetch([])
        #expect(summary.total == 0 && summary.fetched == 0 && summary.cached == 0 && summary.failed == 0)
        #expect(summary.bytes == 0 && summary.failures.isEmpty)
        #expect(target.flushes == 1)
    }

    /// Cancelling cancels what is in flight (counted as failed) and starts nothing more.
    @Test func cancellingStopsTheBatch() async throws {
        let target = ScriptedTarget()
        let list = urls(Array(repeating: "hold", count: 10))
        let batch = Task { await Prefetcher(target: target, concurrency: 2).prefetch(list) }
        while target.started.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        batch.cancel()
        let summary = await batch.value
        #expect(target.started.count == 2)
        #expect(summary.total == 10 && summary.failed == 2 && summary.fetched == 0)
    }
}
