import CoreMetrics
import Foundation
import Logging
import Synchronization
import Trove
import TroveAVIF
import TroveColor
import TroveCore
import TroveHEIF
import TroveJPEG
import TroveJXL
import TroveWebP

// The one pipeline every input runs through, made as `trove serve` makes its own (the CLI's registry, minus
// the Redis and S3 plugins no request here reaches), without a disk cache and with small decoding limits.

/// Small enough that no input can exhaust memory under AddressSanitizer: 4 megapixels, 64 MiB decoded.
let fuzzLimits = DecodingLimits(maxPixels: 1 << 22, maxDecodedBytes: 1 << 26, maxFrames: 100)

/// Serves `fuzz:` URLs with the input under test: the pipeline fetches the fuzzer's bytes as it would an
/// origin's, so everything after the fetch is what a real request runs.
final class FuzzInputFetcher: Fetcher {
    let name = "fuzz-input"
    let schemes: Set<String> = ["fuzz"]
    private let input = Mutex(Data())

    /// Sets the bytes every fetch answers with until the next call.
    func serve(_ data: Data) { input.withLock { $0 = data } }

    func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        let data = input.withLock { $0 }
        // In pieces to whoever watches the body, as an HTTP fetch hands them over: a streamed planar decode
        // then runs on the input as it would on a download.
        if let observer = request.bodyObserver {
            let cuts = [0, data.count / 7, data.count / 3, data.count * 5 / 6, data.count]
            for (start, end) in zip(cuts, cuts.dropFirst()) where end > start { observer(data[start..<end]) }
        }
        progress(FetchProgress(received: Int64(data.count), expected: Int64(data.count)))
        return .data(data, ResponseMetadata(url: request.url, expectedLength: Int64(data.count)))
    }
}

/// Counts the results the pipeline made, those of them made from YCbCr planes and those decoded as the input's
/// pieces came (its own metrics, read through swift-metrics): the proof that inputs reach
/// `ImagePipeline.planarResult` and `StreamedPlanarDecode`.
final class ResultCounts: MetricsFactory {
    final class Count: CounterHandler {
        let value = Atomic<Int64>(0)
        func increment(by amount: Int64) { value.add(amount, ordering: .relaxed) }
        func reset() { value.store(0, ordering: .relaxed) }
    }

    let processed = Count()
    let planar = Count()
    let streamed = Count()

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        switch label {
        case "trove_results_processed_total": processed
        case "trove_results_planar_total": planar
        case "trove_results_streamed_decode_total": streamed
        default: NOOPMetricsHandler.instance
        }
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

let inputFetcher = FuzzInputFetcher()
let resultCounts = ResultCounts()

/// The server's registry (`TroveRegistry.make` in Tools/trove) with the input fetcher added.
let fuzzRegistry: PluginRegistry = {
    var registry = PluginRegistry.standard
    do {
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveWebPPlugin())
        try registry.install(TroveAVIFPlugin())
        try registry.install(TroveJXLPlugin())
        try registry.install(TroveHEIFPlugin())
        try registry.install(TroveColorPlugin())
        try registry.register(fetcher: inputFetcher)
    } catch {
        fatalError("the fuzz registry is inconsistent: \(error)")
    }
    return registry
}()

/// Memory only, with a small memory tier (each input has its own URL, so it never answers one) and no
/// memory of failed URLs (a zero TTL records none), so nothing grows with the run.
let fuzzPipeline: ImagePipeline = {
    var configuration = PipelineConfiguration.memoryOnly
    configuration.decodingLimits = fuzzLimits
    configuration.memory = MemoryCacheConfiguration(costLimit: 16 << 20, countLimit: 64)
    configuration.failedURLTTL = .zero
    // The input's pieces come at once: with no gate the decode follows them as it would a slow download's.
    configuration.streamedDecodeGate = .zero
    configuration.metricsFactory = resultCounts
    // The colour stage's warnings (every damaged profile makes one) would flood the fuzzer's output.
    configuration.logger = Logger(label: "trove.fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
    do {
        return try ImagePipeline(registry: fuzzRegistry, configuration: configuration)
    } catch {
        fatalError("the fuzz pipeline cannot be made: \(error)")
    }
}()

/// Holds an async result for the thread that waits on it; the semaphore orders the write before the read.
private final class Outcome<Value>: @unchecked Sendable {
    var value: Value?
}

/// Runs `body` in a task and blocks until it is done: libFuzzer's callback is synchronous.
func waitFor<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let done = DispatchSemaphore(value: 0)
    let outcome = Outcome<Value>()
    Task {
        outcome.value = await body()
        done.signal()
    }
    done.wait()
    guard let value = outcome.value else { preconditionFailure("the task ended without a value") }
    return value
}
