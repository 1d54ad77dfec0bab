import FixtureServer
import Foundation
import Synchronization
import Testing
import Trove
import TroveTestSupport

/// Collects what one observer reads from a pipeline's `events`, until cancelled.
final class ActivityLog: Sendable {
    /// The events read so far, shared with the reading task.
    final class Seen: Sendable {
        let events = Mutex<[PipelineActivity]>([])
    }

    private let seen = Seen()
    private let reader: Task<Void, Never>

    init(_ stream: AsyncStream<PipelineActivity>) {
        let seen = self.seen
        reader = Task {
            for await event in stream { seen.events.withLock { $0.append(event) } }
        }
    }

    var events: [PipelineActivity] { seen.events.withLock { $0 } }

    func stop() { reader.cancel() }
}

/// `events`: every observer hears of every origin fetch and every cache write; a slow one loses the oldest.
@Suite struct PipelineActivityTests {
    @Test func everyObserverHearsOfEachFetchAndEachWrite() async throws {
        let badge = try pngData("badge.png")
        try await withServerAndCache([
            "/badge.png": .file(badge, contentType: "image/png"), "/gone.png": .status(404)
        ]) { server, directory in
            let pipeline = try makePipeline(directory)
            let first = ActivityLog(pipeline.events), second = ActivityLog(pipeline.events)
            let url = server.url("/badge.png"), gone = server.url("/gone.png")

            _ = try await pipeline.image(for: url)
            _ = try await pipeline.image(for: url)  // memory: no fetch, no write
            _ = try? await pipeline.image(for: gone)
            await pipeline.flush()

            let key = url.absoluteString
            let diskBytes = try #require(await pipeline.diskCache?.listing().first { $0.key == key }?.bytes)
            let notFound = TroveError.httpStatus(404, url: gone.absoluteString)
            let expected: [PipelineActivity] = [
                .finished(url: url, cacheKey: key, result: .downloaded(bytes: badge.count)),
                .stored(cacheKey: key, tier: .disk, bytes: diskBytes),
                .finished(url: gone, cacheKey: gone.absoluteString, result: .failed(reason: "\(notFound)"))
            ]
            for log in [first, second] {
                #expect(await eventually { log.events.count >= 3 })
                #expect(Set(log.events.map(\.summary)) == Set(expected.map(\.summary)))
                #expect(log.events.count == 3)
            }
            first.stop()
            second.stop()
        }
    }

    @Test func aSlowObserverKeepsTheNewestEventsAndAGoneOneIsDropped() async throws {
        let hub = ActivityHub(capacity: 3)
        let stream = hub.stream()
        for index in 1...5 { hub.send { .trimmedMemory(reason: "poll \(index)", removed: index) } }
        var iterator = stream.makeAsyncIterator()
        var read: [PipelineActivity] = []
        for _ in 0..<3 { if let event = await iterator.next() { read.append(event) } }
        #expect(read == (3...5).map { .trimmedMemory(reason: "poll \($0)", removed: $0) })

        let log = ActivityLog(hub.stream())
        #expect(hub.observerCount == 2)
        log.stop()
        #expect(await eventually { hub.observerCount == 1 })
    }
}

extension PipelineActivity {
    /// The event as text, for comparing sets of events whose order across tasks is not fixed.
    var summary: String { "\(self)" }
}
