import Foundation
import Synchronization
import Testing
import Trove
import TroveCore
import TroveTestSupport

/// The crash guard of one pipeline (`PipelineConfiguration.crashGuard`): what a dead process's crash journal
/// says becomes marks that refuse a source, strikes become a mark the second time, `forget(url:)` clears a
/// mark, and the journal holds the source while a thread works on it. A real crash of a real server is
/// `PoisonedSourceFleetTests`' (TroveCLITests).
@Suite(.serialized) struct CrashGuardTests {
    static let image = Fixtures.image("badge.png")

    /// A pid no process has: one that just exited.
    static func deadPID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    /// A journal as a process that died would have left it: `held` sources in slots, the first of them on the
    /// thread that died of `signal` when one is given.
    static func leaveJournal(in cache: URL, held: [String], crashedWith signal: Int32?) throws {
        var bytes = [UInt8](repeating: 0, count: 64 + 64 * 1024)
        func put(_ value: Int32, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { for i in 0..<4 { bytes[offset + i] = $0[i] } }
        }
        bytes.replaceSubrange(0..<4, with: Array("TRVJ".utf8))
        put(1, at: 4)
        put(signal == nil ? -1 : 0, at: 8)
        put(signal ?? 0, at: 12)
        for (slot, source) in held.enumerated() {
            let base = 64 + slot * 1024
            put(1, at: base)
            put(Int32(source.utf8.count), at: base + 4)
            bytes.replaceSubrange((base + 8)..<(base + 8 + source.utf8.count), with: Array(source.utf8))
        }
        let folder = cache.appendingPathComponent("crash-journals")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: folder.appendingPathComponent(String(try deadPID())))
    }

    static func pipeline(_ cache: URL) throws -> ImagePipeline {
        var configuration = PipelineConfiguration(cacheDirectory: cache)
        configuration.crashGuard = .seconds(60)
        return try ImagePipeline(configuration: configuration)
    }

    @Test func aSourceACrashWasTracedToIsRefusedUntilForgotten() async throws {
        try await withTemporaryDirectory { cache in
            let source = CacheKey.normalized(Self.image)
            try Self.leaveJournal(in: cache, held: [source], crashedWith: SIGILL)
            let pipeline = try Self.pipeline(cache)
            let error = await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: Self.image) }
            guard case let .poisonedSource(url, cause, until)? = error else {
                Issue.record("expected poisonedSource, got \(String(describing: error))")
                return
            }
            #expect(url == Self.image.absoluteString && cause == "SIGILL")
            #expect(until > Date().addingTimeInterval(50) && until < Date().addingTimeInterval(61))
            #expect(error?.description.contains("crashed a server (SIGILL)") == true)
            #expect(error?.description.contains("trove cache forget") == true)
            // The journal was read and removed; other sources are untouched.
            let folder = cache.appendingPathComponent("crash-journals")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [String(getpid())])
            let other = Fixtures.image("tiles.png")
            #expect(try await pipeline.image(for: other).image.width > 0)
            // A new process on the same directory still refuses it: the mark is kept on disk.
            await #expect(throws: TroveError.self) { _ = try await Self.pipeline(cache).image(for: Self.image) }
            let report = await pipeline.forget(url: Self.image)
            #expect(report.poisoned == 1)
            #expect(try await pipeline.image(for: Self.image).image.width > 0)
        }
    }

    @Test func aSourceInFlightWhenTwoProcessesWereKilledIsRefused() async throws {
        try await withTemporaryDirectory { cache in
            let source = CacheKey.normalized(Self.image)
            // Killed without a fatal signal (SIGKILL, the OOM killer): the first time is a strike only.
            try Self.leaveJournal(in: cache, held: [source], crashedWith: nil)
            #expect(try await Self.pipeline(cache).image(for: Self.image).image.width > 0)
            try Self.leaveJournal(in: cache, held: [source], crashedWith: nil)
            let error = await #expect(throws: TroveError.self) {
                _ = try await Self.pipeline(cache).image(for: Self.image)
            }
            guard case let .poisonedSource(_, cause, _)? = error else {
                Issue.record("expected poisonedSource, got \(String(describing: error))")
                return
            }
            #expect(cause == "killed twice while in flight")
        }
    }

    @Test func itsLogLinesShowSourcesWithoutTheirQuery() async throws {
        try await withTemporaryDirectory { cache in
            // The source that crashed is marked (an error line), the other one in flight struck (a warning).
            let crashed = "https://images.example/crashed.jpg?token=s3cr3t-one"
            let inFlight = "https://images.example/in-flight.jpg?sig=s3cr3t-two"
            try Self.leaveJournal(in: cache, held: [crashed, inFlight], crashedWith: SIGSEGV)
            let recorder = LogRecorder()
            var configuration = PipelineConfiguration(cacheDirectory: cache)
            configuration.crashGuard = .seconds(60)
            configuration.logger = recorder.logger()
            let pipeline = try ImagePipeline(configuration: configuration)
            _ = try await pipeline.image(for: Fixtures.image("tiles.png"))
            let logged = await eventually(within: .seconds(10)) {
                recorder.recorded.contains { $0.contains("crashed this server") }
                    && recorder.recorded.contains { $0.contains("was in flight") }
            }
            let lines = recorder.recorded
            #expect(logged, "\(lines)")
            #expect(
                lines.contains {
                    $0.contains("crashed this server") && $0.contains("https://images.example/crashed.jpg")
                })
            #expect(
                lines.contains { $0.contains("was in flight") && $0.contains("https://images.example/in-flight.jpg") })
            #expect(
                !lines.contains { $0.contains("s3cr3t") || $0.contains("token=") || $0.contains("sig=") }, "\(lines)")
        }
    }

    /// A decoder that waits inside `decode` until told to go on, so the test can read the journal meanwhile.
    final class WaitingDecoder: ImageDecoder {
        let inner: any ImageDecoder
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        var name: String { inner.name }
        var format: ImageFormat { inner.format }
        init(_ inner: any ImageDecoder) { self.inner = inner }
        func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }
        func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
            entered.signal()
            proceed.wait()
            return try inner.decode(data, limits: limits)
        }
    }

    @Test func theJournalHoldsTheSourceWhileItIsDecoded() async throws {
        try await withTemporaryDirectory { cache in
            var registry = PluginRegistry.standard
            let decoder = WaitingDecoder(try #require(registry.decoder(for: Data(contentsOf: Self.image))))
            try registry.register(decoder: decoder, replacing: true)
            var configuration = PipelineConfiguration(cacheDirectory: cache)
            configuration.crashGuard = .seconds(60)
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            let journal = cache.appendingPathComponent("crash-journals/\(getpid())")
            let load = Task { try await pipeline.image(for: Self.image) }
            await withCheckedContinuation { done in
                DispatchQueue.global().async {
                    decoder.entered.wait()
                    done.resume()
                }
            }
            let during = CrashJournal.parse(try Data(contentsOf: journal))
            decoder.proceed.signal()
            _ = try await load.value
            let after = CrashJournal.parse(try Data(contentsOf: journal))
            #expect(during.interrupted == [CacheKey.normalized(Self.image)] && during.crashed.isEmpty)
            #expect(after.interrupted.isEmpty && after.crashed.isEmpty)
        }
    }

    @Test func withoutTheSettingThereIsNoJournal() async throws {
        try await withTemporaryDirectory { cache in
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: cache))
            #expect(try await pipeline.image(for: Self.image).image.width > 0)
            #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent("crash-journals").path))
        }
    }
}
