import FixtureServer
import Foundation
import Synchronization
import Testing
import Trove
import TroveTestSupport

/// A pressure source a test switches on and off.
final class SwitchedPressure: MemoryPressureSource {
    private let pressed = Mutex(false)
    private let polls = Mutex(0)

    var isOn: Bool {
        get { pressed.withLock { $0 } }
        set { pressed.withLock { $0 = newValue } }
    }

    /// How many times the pipeline asked.
    var pollCount: Int { polls.withLock { $0 } }

    func currentPressure() -> MemoryPressure? {
        polls.withLock { $0 += 1 }
        return isOn ? MemoryPressure(reason: "the test says so") : nil
    }
}

/// The memory tier gives memory back under pressure, down to its low-water mark, and leaves the disk alone.
@Suite struct MemoryPressureTests {
    static let body = Data(repeating: 7, count: 1000)
    static let routes = Dictionary(
        uniqueKeysWithValues: (0..<8).map {
            ("/blob\($0).bin", FixtureServer.Route.file(body, contentType: "application/octet-stream"))
        })

    /// A data pipeline holding up to 10 entries of 1000 bytes in memory, watched by `source`.
    func pipeline(_ directory: URL, source: SwitchedPressure, interval: Duration) throws -> DataPipeline {
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.memory.costLimit = 10_000
        configuration.memory.countLimit = 10
        configuration.memoryPressure.source = source
        configuration.memoryPressure.pollInterval = interval
        configuration.memoryPressure.lowWaterFraction = 0.3
        return try DataPipeline(configuration: configuration)
    }

    @Test func onePollUnderPressureTrimsMemoryToTheLowWaterMarkAndLeavesTheDisk() async throws {
        try await withServerAndCache(Self.routes) { server, directory in
            let source = SwitchedPressure()
            // Polls far apart: this test makes them itself.
            let pipeline = try pipeline(directory, source: source, interval: .seconds(3600))
            for index in 0..<8 { _ = try await pipeline.data(for: server.url("/blob\(index).bin")) }
            await pipeline.flush()
            #expect(pipeline.memoryCache.stats.count == 8 && pipeline.memoryCache.stats.totalCost == 8000)
            let watch = try #require(pipeline.memoryPressureWatch)
            let log = ActivityLog(pipeline.events)
            defer { log.stop() }

            #expect(watch.poll() == nil)
            #expect(pipeline.memoryCache.stats.count == 8)

            source.isOn = true
            // 30% of 10 entries and of 10 000 bytes: 3 entries stay, the most recently used.
            #expect(watch.poll() == 5)
            #expect(pipeline.memoryCache.stats.count == 3 && pipeline.memoryCache.stats.totalCost == 3000)
            #expect(await eventually { log.events == [.trimmedMemory(reason: "the test says so", removed: 5)] })
            #expect(try await pipeline.diskCache?.keys().count == 8)
            #expect(try await pipeline.data(for: server.url("/blob7.bin")).source == .memory)
            #expect(try await pipeline.data(for: server.url("/blob0.bin")).source == .disk)
            #expect(server.requestCount(for: "/blob0.bin") == 1)
        }
    }

    @Test func thePipelinesOwnPollingFindsThePressure() async throws {
        try await withServerAndCache(Self.routes) { server, directory in
            let source = SwitchedPressure()
            let pipeline = try pipeline(directory, source: source, interval: .milliseconds(10))
            for index in 0..<8 { _ = try await pipeline.data(for: server.url("/blob\(index).bin")) }
            source.isOn = true
            #expect(await eventually { pipeline.memoryCache.stats.count <= 3 })
            #expect(pipeline.memoryCache.stats.totalCost <= 3000)
            await pipeline.flush()
            #expect(try await pipeline.diskCache?.keys().count == 8)
        }
    }

    @Test func aDisabledWatchNeverAsks() throws {
        let source = SwitchedPressure()
        var configuration = PipelineConfiguration.memoryOnly
        configuration.memoryPressure.source = source
        configuration.memoryPressure.isEnabled = false
        let pipeline = try ImagePipeline(configuration: configuration)
        #expect(pipeline.memoryPressureWatch == nil && source.pollCount == 0)
    }
}
