import ArgumentParser
import Foundation
import Trove

struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Warm the cache for a list of URLs, one a line (blank lines and # comments skipped).")

    @OptionGroup var common: CommonOptions

    @Argument(help: "File of URLs, or - for standard input.")
    var file: String

    @Option(help: "Requests in flight at once.")
    var concurrency = 6

    @OptionGroup var cache: CacheOptions

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var shared: SharedCacheOptions

    @Flag(help: "Warm plain data (any bytes) instead of images (bytes no decoder recognises are refused).")
    var data = false

    @Flag(name: .customLong("retry-failed"), help: "Fetch even URLs that failed recently for a lasting reason.")
    var retryFailed = false

    @Option(
        help: ArgumentHelp(
            "Warm this processed variant of each image too (a transform spec, as `trove get --transform`), so a "
                + "later request for it is a disk hit."))
    var transform: String?

    @OptionGroup var encoding: EncodingArguments

    @OptionGroup var orientation: OrientationArgument

    @Option(
        help: ArgumentHelp(
            "Compute each image's placeholder too (thumbhash, blurhash, or blurhash:XxY) and keep it with the cached "
                + "original; with --progress json each line carries it."))
    var placeholder: PlaceholderArgument?

    @Option(
        help: ArgumentHelp(
            "json: one JSON line per URL on stdout as it finishes (url, status, source, bytes, ms; error for a "
                + "failure), then the summary line. The terminal bar is drawn either way when stderr is a terminal."))
    var progress: ProgressStyle?

    enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
        case json
    }

    func validate() throws {
        guard concurrency > 0 else { throw ValidationError("--concurrency must be at least 1") }
        if data, transform != nil || encoding.format != nil {
            throw ValidationError("--transform and --format make image variants; they do not apply with --data")
        }
        if data, placeholder != nil {
            throw ValidationError("--placeholder is computed from images; it does not apply with --data")
        }
    }

    func run() async throws {
        let text: String
        do {
            text =
                file == "-"
                ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                : try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw ValidationError("cannot read \(file): \(error.localizedDescription)")
        }
        let urls = try text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { try GetCommand.url(from: $0) }

        var pipeline: any PrefetchTarget
        let sharedTier: (any SharedCacheTier)?
        do {
            var configuration = try common.pipelineConfiguration()
            cache.apply(to: &configuration)
            fetch.apply(to: &configuration)
            try shared.apply(to: &configuration)
            if data {
                let dataPipeline = try DataPipeline(registry: TroveRegistry.make(), configuration: configuration)
                (pipeline, sharedTier) = (dataPipeline, dataPipeline.sharedTier)
            } else {
                let registry = try TroveRegistry.make()
                encoding.apply(to: &configuration.encodingOptions)
                let imagePipeline = try ImagePipeline(registry: registry, configuration: configuration)
                sharedTier = imagePipeline.sharedTier
                if transform != nil || encoding.format != nil {
                    pipeline = ProcessedVariantTarget(
                        pipeline: imagePipeline,
                        transforms: try transform.map { try registry.transformers(forSpec: $0) } ?? [],
                        outputFormat: try encoding.format.map {
                            try EncodingArguments.encoder(for: $0, in: registry).format
                        },
                        options: orientation.requestOptions)
                } else {
                    pipeline = imagePipeline
                }
                if let placeholder {
                    pipeline = PlaceholderTarget(inner: pipeline, pipeline: imagePipeline, kind: placeholder.kind)
                }
            }
        } catch let error as TroveError {
            throw ValidationError(error.description)
        }
        let bar = TerminalProgress()
        let linePerURL = progress == .json
        let prefetcher = Prefetcher(target: pipeline, concurrency: concurrency, retryFailed: retryFailed)
        let summary = await prefetcher.prefetch(urls) { progress in
            // Calls come one at a time, in order, so lines never interleave.
            if linePerURL { writeJSONLineNow(PrefetchLine(progress.finished, kind: placeholder?.kind)) }
            bar.update("prefetch \(progress.done)/\(progress.total)  \(TerminalProgress.bytes(Int64(progress.bytes)))")
        }
        bar.finish()
        // Publishes this process's shared-tier counts for `trove cache stats`.
        await sharedTier?.shutdown()
        for failure in summary.failures { printError("trove prefetch: \(failure.error)") }
        if common.json || linePerURL {
            printJSONLine(summary)
        } else {
            print(
                "\(summary.total) URLs: \(summary.fetched) fetched, \(summary.cached) already cached"
                    + (summary.shared > 0 ? " (\(summary.shared) from the shared cache)" : "") + ", "
                    + "\(summary.failed) failed (\(TerminalProgress.bytes(Int64(summary.bytes))))")
        }
        if summary.failed > 0 { throw ExitCode(1) }
    }
}

/// One `trove prefetch --progress json` line: `status` is ok or failed; a failure has `error` and no source.
/// With `--placeholder`, an image's line has its `placeholder`.
struct PrefetchLine: Encodable {
    let url: String
    let status: String
    let source: String?
    let bytes: Int?
    let ms: Double
    let error: String?
    let placeholder: PlaceholderField?

    init(_ finished: PrefetchedURL, kind: PlaceholderKind? = nil) {
        if let kind, let value = finished.item?.placeholder {
            placeholder = PlaceholderField(kind, value)
        } else {
            placeholder = nil
        }
        url = finished.url.absoluteString
        status = finished.error == nil ? "ok" : "failed"
        source = finished.item?.source.rawValue
        bytes = finished.item?.bytes
        ms = finished.duration.milliseconds
        error = finished.error
    }
}
