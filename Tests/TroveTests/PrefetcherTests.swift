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
    }

    private let state = Mutex(State())

    var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }
    var started: [String] { state.withLock { $0.started } }
    var flushes: Int { state.withLock { $0.flushes } }

    func prefetch(_ url: URL, priority: RequestPriority, destination: PrefetchDestination) async throws
        -> PrefetchedItem
    {
        state.withLock { state in
            state.running += 1
            state.mostAtOnce = max(state.mostAtOnce, state.running)
            state.started.append(url.lastPathComponent)
        }
        defer { state.withLock { $0.running -= 1 } }
        // A pause, so the workers overlap as network fetches do.
        try await Task.sleep(for: .milliseconds(5))
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
        state.withLock { $0.flushes += 1 }
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
        let summary = await Prefetcher(pipeline: target, concurrency: 3).prefetch(urls(paths)) { progress in
            reports.withLock { $0.append(progress) }
        }
        #expect(summary.total == 40 && summary.fetched == 10 && summary.cached == 20 && summary.shared == 10)
        #expect(summary.failed == 10 && summary.bytes == 10 * 100 + 10 * 10 + 10 * 1)
        #expect(summary.failures.map(\.url) == urls(paths).enumerated().filter { $0.offset % 4 == 3 }.map(\.element.absoluteString))
        #expect(summary.failures.allSatisfy { $0.error.contains("404") })
        // One report per URL, counting up, the bytes never going back.
        let seen = reports.withLock { $0 }
        #expect(seen.map(\.done) == Array(1...40))
        #expect(seen.allSatisfy { $0.total == 40 })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytes <= $1.bytes } && seen.last?.bytes == summary.bytes)
        // Each URL started once, never more than `concurrency` at a time; then one flush.
        #expect(target.started.sorted() == urls(paths).map(\.lastPathComponent).sorted())
        #expect(target.mostAtOnce == 3)
        #expect(target.flushes == 1)
    }

    @Test func anEmptyListFlushesAndCountsNothing() async {
        let target = ScriptedTarget()
        let summary = await Prefetcher(pipeline: target).prefetch([])
        #expect(summary.total == 0 && summary.fetched == 0 && summary.cached == 0 && summary.failed == 0)
        #expect(summary.bytes == 0 && summary.failures.isEmpty)
        #expect(target.flushes == 1)
    }

    /// Cancelling cancels what is in flight (counted as failed) and starts nothing more.
    @Test func cancellingStopsTheBatch() async throws {
        let target = ScriptedTarget()
        let list = urls(Array(repeating: "hold", count: 10))
        let batch = Task { await Prefetcher(pipeline: target, concurrency: 2).prefetch(list) }
        while target.started.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        batch.cancel()
        let summary = await batch.value
        #expect(target.started.count == 2)
        #expect(summary.total == 10 && summary.failed == 2 && summary.fetched == 0)
    }
}
