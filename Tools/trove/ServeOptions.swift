import ArgumentParser
import Foundation
import Logging
import Trove
import TroveServer

/// The flags of `trove serve`. A flag left out says nothing, so the environment or the config file decides.
struct ServeOptions: ParsableArguments {
    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one (default 8080).")
    var port: Int?

    @Option(
        name: .customLong("cache-dir"),
        help: "Cache directory (default $TROVE_CACHE_DIR, else $XDG_CACHE_HOME/trove, else ~/.cache/trove).")
    var cacheDirectory: String?

    @Option(help: "Hex signing key; repeat with --salt for several pairs (key rotation).")
    var key: [String] = []

    @Option(help: "Hex signing salt, one per --key.")
    var salt: [String] = []

    @Option(name: .customLong("allowed-source"), help: "Allowed source URL prefix; repeat for several (default: any).")
    var allowedSources: [String] = []

    @Flag(help: "Allow sources on loopback addresses (127.0.0.0/8, ::1).")
    var allowLoopbackSources = false

    @Flag(help: "Allow sources on private and link-local addresses.")
    var allowPrivateSources = false

    @Option(help: "Most transforms at once (default: the number of cores).")
    var maxConcurrency: Int?

    @Option(help: "Most requests waiting for a transform; past it requests get 429 (default: 16 per core).")
    var maxQueue: Int?

    @Flag(help: "Transform every request (sources stay cached); for benchmarks and tests.")
    var noResultCache = false

    @Option(
        name: .customLong("preset"), help: "A preset as NAME=OPTIONS (e.g. thumb=rs:fill:300:300/q:80); repeatable.")
    var presets: [String] = []

    @Flag(help: "Accept only preset options in URLs.")
    var presetsOnly = false

    @Option(help: "Largest source in bytes (default 50 MiB).")
    var maxSourceBytes: Int?

    @Option(help: "Largest source in pixels, checked from its header before decoding (default 50,000,000).")
    var maxSourcePixels: Int?

    @Option(help: "Most animation frames decoded (default 100).")
    var maxAnimationFrames: Int?

    @Option(help: "Seconds a request may take, fetch and retries included (default 30).")
    var deadline: Double?

    @Option(help: "Largest width or height of a result in pixels; larger asks get 400 or 422 (default 8192).")
    var maxResultDimension: Int?

    @Option(help: "Most image requests in progress, identical ones included; past it 429 (default 1024).")
    var maxRequests: Int?

    @Option(
        help:
            "How much larger than the output a JPEG or WebP stays when decoded reduced: 1 as thumbor, 2 as Pillow's thumbnail() (default 1)."
    )
    var reducingGap: Double?

    @Option(help: "Cache-Control max-age of results in seconds (default 31536000).")
    var resultMaxAge: Int?

    @Option(
        name: .customLong("shared-cache"),
        help: "Shared cache tier for a fleet: redis://[user:pass@]host:port[/db] (default $TROVE_SHARED_CACHE).")
    var sharedCache: String?

    @Flag(help: "Accept imgproxy's security options (max_src_resolution, max_result_dimension, ...) in URLs.")
    var allowSecurityOptions = false

    @Option(help: "An image file that URLs' watermark option lays over results.")
    var watermark: String?

    @Option(help: "A JSON file of settings (keys, salts, presets, presetsOnly, allowedSources, limits, ...).")
    var config: String?

    @Option(
        name: .customLong("log-level"),
        help: "Log level: trace, debug, info (an access log line per request), notice, warning, error.",
        transform: { text in
            // A transform rather than a conformance: Logger.Level belongs to swift-log, ExpressibleByArgument
            // to swift-argument-parser, and a retroactive conformance could clash with theirs.
            guard let level = Logger.Level(rawValue: text) else {
                throw ValidationError(
                    "unknown log level '\(text)'; use trace, debug, info, notice, warning, error or critical")
            }
            return level
        })
    var logLevel: Logger.Level = .info

    /// The settings these flags give.
    func settings() throws -> ServerSettings {
        var settings = ServerSettings()
        settings.host = host
        settings.port = port
        settings.cacheDir = cacheDirectory
        if !key.isEmpty { settings.keys = key }
        if !salt.isEmpty { settings.salts = salt }
        if !allowedSources.isEmpty { settings.allowedSources = allowedSources }
        if allowLoopbackSources { settings.allowLoopbackSources = true }
        if allowPrivateSources { settings.allowPrivateSources = true }
        settings.maxConcurrency = maxConcurrency
        settings.maxQueue = maxQueue
        if noResultCache { settings.resultCache = false }
        if !presets.isEmpty {
            var table: [String: String] = [:]
            for preset in presets {
                guard let equals = preset.firstIndex(of: "="), equals != preset.startIndex else {
                    throw ServerConfigurationError("--preset \(preset) must be NAME=OPTIONS")
                }
                table[String(preset[..<equals])] = String(preset[preset.index(after: equals)...])
            }
            settings.presets = table
        }
        if presetsOnly { settings.presetsOnly = true }
        settings.maxSourceBytes = maxSourceBytes
        settings.maxSourcePixels = maxSourcePixels
        settings.maxAnimationFrames = maxAnimationFrames
        settings.requestDeadlineSeconds = deadline
        settings.maxResultDimension = maxResultDimension
        settings.maxRequests = maxRequests
        settings.reducingGap = reducingGap
        settings.resultMaxAge = resultMaxAge
        if let sharedCache { settings.sharedCache = sharedCache }
        return settings
    }

    /// Defaults, then the config file, then the environment, then the flags.
    func resolvedConfiguration(environment: [String: String]) throws -> ServerConfiguration {
        var defaults = ServerSettings()
        defaults.cacheDir = PipelineConfiguration.defaultCacheDirectory.path
        var layers = [defaults]
        if let config { layers.append(try ServerSettings(contentsOf: URL(fileURLWithPath: config))) }
        layers.append(try ServerSettings(environment: environment))
        layers.append(try settings())
        var configuration = try ServerConfiguration(layers: layers)
        if allowSecurityOptions { configuration.allowSecurityOptions = true }
        if let watermark { configuration.watermarkFile = watermark }
        return configuration
    }
}
