import ArgumentParser
import Foundation
import Synchronization
import Trove

struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Fetch URLs through the whole pipeline (memory, disk, network), concurrently.")

    @OptionGroup var common: CommonOptions

    @Argument(help: "http(s), file, data or s3://bucket/key URLs (a plain path is read as a file).")
    var urls: [String]

    @Option(name: .shortAndLong, help: "Write the result here (a directory when several URLs are given).")
    var output: String?

    @Option(help: "Transform spec, e.g. resize:w=200,h=200,mode=fit,filter=bilinear")
    var transform: String?

    @OptionGroup var encoding: EncodingArguments

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var shared: SharedCacheOptions

    @OptionGroup var s3: S3SourceOptions

    @Option(
        help: """
            Cache policy: use-cache, reload, cache-only, refresh (revalidate what is cached), http (use-cache \
            with RFC 9111's heuristic: 10% of the time since Last-Modified).
            """)
    var policy: PolicyArgument = .useCache

    @Flag(
        name: .customLong("memory-only"),
        help: "Write nothing to disk: no entries, no remembered failures (an existing cache is still read).")
    var memoryOnly = false

    @Flag(name: .customLong("retry-failed"), help: "Fetch even URLs that failed recently for a lasting reason.")
    var retryFailed = false

    @Option(
        help:
            "Scheduling priority while a fetch waits for a slot: very-low, low, normal (the default), high, very-high.")
    var priority: PriorityArgument = .normal

    @OptionGroup var cache: CacheOptions

    @OptionGroup var compression: CompressionOption

    @OptionGroup var orientation: OrientationArgument

    @Option(
        help: ArgumentHelp(
            "Print each image's placeholder (thumbhash, blurhash, or blurhash:XxY for other components) instead of "
                + "the summary line; with --json, a placeholder field. Without --output, --transform or --format "
                + "the image is not decoded whole: the placeholder comes from a reduced decode, or from the cache."))
    var placeholder: PlaceholderArgument?

    enum PolicyArgument: String, ExpressibleByArgument, CaseIterable {
        case useCache = "use-cache"
        case reload
        case cacheOnly = "cache-only"
        case refresh
        /// use-cache with RFC 9111's own heuristic freshness (10% of the time since Last-Modified).
        case http
    }

    func run() async throws {
        let registry = try TroveRegistry.make(
            s3Sources: s3.settings(environment: ProcessInfo.processInfo.environment))
        var configuration = try common.pipelineConfiguration()
        cache.apply(to: &configuration)
        policy.apply(to: &configuration)
        if let compress = compression.compress { configuration.compressor = CompressorName(compress) }
        encoding.apply(to: &configuration.encodingOptions)
        fetch.apply(to: &configuration)
        try shared.apply(to: &configuration)
        if memoryOnly, let directory = configuration.cacheDirectory, Self.holdsNothing(directory) {
            // Opening a cache makes its folders and manifest: with nothing there to read, open none.
            configuration.cacheDirectory = nil
        }
        let pipeline: ImagePipeline
        let transforms: [any ImageTransformer]
        let outputFormat: ImageFormat?
        do {
            pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            transforms = try transform.map { try registry.transformers(forSpec: $0) } ?? []
            outputFormat = try encoding.format.map { try EncodingArguments.encoder(for: $0, in: registry).format }
        } catch let error as TroveError {
            throw ValidationError(error.description)
        }
        let requests = try urls.map { text in
            var request = ImageRequest(
                url: try Self.url(from: text), transforms: transforms, priority: priority.requestPriority,
                cachePolicy: memoryOnly ? .memoryOnly : policy.cachePolicy,
                options: (retryFailed ? ImageRequest.Options.retryFailed : []).union(orientation.requestOptions),
                outputFormat: outputFormat)
            request.placeholder = placeholder?.kind
            return request
        }
        let outputs = try outputPaths(for: requests)

        let progress = DownloadProgress(count: requests.count)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    await self.load(
                        request, index: index, pipeline: pipeline, registry: registry,
                        output: outputs[index], progress: progress)
                }
            }
            var failures = 0
            for await ok in group where !ok { failures += 1 }
            return failures
        }
        progress.bar.finish()
        // Disk writes are write-behind: what was fetched is on disk when the process exits.
        await pipeline.flush()
        // Publishes this process's shared-tier counts for `trove cache stats`.
        await pipeline.sharedTier?.shutdown()
        if failures > 0 { throw ExitCode(1) }
    }

    /// Loads one request and reports it; false when it failed.
    private func load(
        _ request: ImageRequest, index: Int, pipeline: ImagePipeline, registry: PluginRegistry,
        output: URL?, progress: DownloadProgress
    ) async -> Bool {
        let start = ContinuousClock.now
        do {
            if let kind = request.placeholder, output == nil, request.transforms.isEmpty, request.outputFormat == nil {
                // Only the placeholder is wanted: no whole decode, and none at all when it is cached.
                let value = try await pipeline.placeholder(for: request, kind: kind)
                progress.finished(index)
                report(
                    PlaceholderReport(
                        url: request.url.absoluteString, placeholder: PlaceholderField(kind, value),
                        ms: (ContinuousClock.now - start).milliseconds))
                return true
            }
            // The events carry download progress; with `refresh` the last one is the revalidated result.
            var final: ImageResponse?
            for try await event in pipeline.task(for: request).events {
                switch event {
                case let .progress(update): progress.update(index, update)
                case .cached, .preview: break
                case let .final(response): final = response
                }
            }
            guard let response = final else { throw TroveError.cancelled }
            progress.finished(index)
            let elapsed = ContinuousClock.now - start
            if let output { try response.data.write(to: output, options: .atomic) }
            let report = GetReport(
                url: request.url.absoluteString, source: response.source.rawValue,
                width: response.image.width, height: response.image.height,
                format: (registry.format(of: response.data) ?? .unknown).rawValue,
                bytes: response.data.count, ms: elapsed.milliseconds, stale: response.isStale)
            if let kind = request.placeholder, let value = response.placeholder {
                var report = report
                report.placeholder = PlaceholderField(kind, value)
                if common.json { printJSONLine(report) } else { print(value) }
            } else if common.json {
                printJSONLine(report)
            } else {
                print(
                    "\(report.source.padding(toLength: 8, withPad: " ", startingAt: 0))\(report.stale ? " (stale)" : "") "
                        + "\(report.width)x\(report.height) \(report.format) \(report.bytes) B "
                        + String(format: "%.1f ms", report.ms) + "  \(report.url)")
            }
            return true
        } catch {
            let message = (error as? TroveError)?.description ?? String(describing: error)
            printError("trove get: \(message)")
            if common.json { printJSONLine(["url": request.url.absoluteString, "error": message]) }
            return false
        }
    }

    /// A placeholder alone: its string, or with --json a line with the URL and the kind.
    private func report(_ report: PlaceholderReport) {
        if common.json { printJSONLine(report) } else { print(report.placeholder.value) }
    }

    private func outputPaths(for requests: [ImageRequest]) throws -> [URL?] {
        guard let output else { return requests.map { _ in nil } }
        let target = URL(fileURLWithPath: output)
        if requests.count == 1 { return [target] }
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let ext = encoding.format.map { "." + $0.fileExtension } ?? ""
        return requests.enumerated().map { index, request in
            let name = request.url.lastPathComponent.isEmpty ? "result" : request.url.lastPathComponent
            return target.appendingPathComponent("\(index)-\(name)\(ext)")
        }
    }

    /// Whether `directory` is missing or empty: no cache to read from.
    static func holdsNothing(_ directory: URL) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty
    }

    static func url(from text: String) throws -> URL {
        if let url = URL(string: text), let scheme = url.scheme, scheme.count > 1 { return url }
        guard !text.isEmpty else { throw ValidationError("an empty URL was given") }
        return URL(fileURLWithPath: text)
    }
}

extension GetCommand.PolicyArgument {
    var cachePolicy: CachePolicy {
        switch self {
        case .useCache: .useCache
        case .reload: .reloadIgnoringCache
        case .cacheOnly: .cacheOnly
        case .refresh: .refresh
        case .http: .useCache
        }
    }

    /// Sets what the policy says beyond the request's cache policy: `http` takes RFC 9111's heuristic.
    func apply(to configuration: inout PipelineConfiguration) {
        if self == .http { configuration.heuristicFreshness = .lastModifiedFraction }
    }
}

/// One `trove get --json` line.
struct GetReport: Encodable {
    let url: String
    let source: String
    let width: Int
    let height: Int
    let format: String
    let bytes: Int
    let ms: Double
    /// A cached copy past its freshness, delivered because the origin failed (or `refresh` could not reach it).
    let stale: Bool
    /// The image's placeholder, with `--placeholder`.
    var placeholder: PlaceholderField?
}

/// One `trove get --placeholder --json` line when only the placeholder was computed.
struct PlaceholderReport: Encodable {
    let url: String
    let placeholder: PlaceholderField
    let ms: Double
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

/// Aggregates the byte progress of concurrent downloads into one terminal line.
final class DownloadProgress: Sendable {
    let bar = TerminalProgress()
    private let count: Int
    private let state = Mutex<(received: [Int: Int64], expected: [Int: Int64], done: Int)>(([:], [:], 0))

    init(count: Int) { self.count = count }

    func update(_ index: Int, _ progress: FetchProgress) {
        let (received, expected, done) = state.withLock { state in
            state.received[index] = progress.received
            if let total = progress.expected { state.expected[index] = total }
            return (state.received.values.reduce(0, +), state.expected.values.reduce(0, +), state.done)
        }
        bar.update(
            "get \(done)/\(count)  \(TerminalProgress.bytes(received))"
                + (expected > 0 ? " of \(TerminalProgress.bytes(expected))" : ""))
    }

    func finished(_ index: Int) {
        state.withLock { $0.done += 1 }
    }
}
