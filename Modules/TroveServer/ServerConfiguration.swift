import Foundation
import Trove

/// Everything `trove serve` needs to know, with the defaults a server on the open internet should have.
/// Built from `ServerSettings` layers (file, then environment, then flags); see `init(settings:)`.
public struct ServerConfiguration: Sendable {
    /// The address to listen on (loopback by default: put it behind a CDN or a reverse proxy).
    public var host = "127.0.0.1"
    /// The port; 0 lets the system pick a free one (printed when listening).
    public var port = 8080
    /// Where the pipeline keeps sources and results; nil keeps everything in memory.
    public var cacheDirectory: URL?
    /// Hex keys and salts, pairwise, for imgproxy signatures; several pairs allow key rotation. With none,
    /// unsigned URLs are accepted (and the server warns at start).
    public var keys: [String] = []
    public var salts: [String] = []
    /// Named option strings (`"thumb": "rs:fill:300:300/q:80"`); `default` applies to every URL.
    public var presets: [String: String] = [:]
    /// Accept only `preset`/`pr` options in URLs.
    public var presetsOnly = false
    /// Source URL prefixes that are allowed (matched on a boundary); empty allows any http(s) source.
    public var allowedSources: [String] = []
    /// Lift the address rules for loopback (127.0.0.0/8, ::1) and for private/link-local sources.
    public var allowLoopbackSources = false
    public var allowPrivateSources = false
    /// At most this many transforms at once; further requests wait in a queue of `maxQueue`, and past
    /// that are answered 429 at once.
    public var maxConcurrency = ProcessInfo.processInfo.activeProcessorCount
    public var maxQueue = ProcessInfo.processInfo.activeProcessorCount * 16
    /// Keep encoded results in memory (and on disk); false transforms every request (sources stay cached).
    public var resultCache = true
    /// Bytes of encoded results kept in memory.
    public var resultMemoryBytes = 256 << 20
    /// Largest source accepted, in bytes.
    public var maxSourceBytes = 50 << 20
    /// Largest source accepted, in pixels (width × height from the header, checked before decoding).
    public var maxSourcePixels = 50_000_000
    /// Most animation frames decoded from one source.
    public var maxAnimationFrames = 100
    /// The whole request's time: queueing for the origin, the fetch and its retries.
    public var requestDeadline: Duration = .seconds(30)
    /// `Cache-Control: public, max-age` of results (one year) and of client errors (10 s); 429 and 5xx
    /// answers carry `no-store`.
    public var resultMaxAge = 31_536_000
    public var errorMaxAge = 10
    /// The shared cache tier's URL (`redis://...`), when one is configured.
    public var sharedCache: String?
    /// Largest width or height of a result, and of the resized image it is cut from (imgproxy's
    /// `max_result_dimension`): larger asks are refused (400 from the URL's numbers, 422 once the source's
    /// size shows it), so no URL can make the server allocate gigapixels.
    public var maxResultDimension = 8192
    /// Most image requests in progress at once, counting those that share another's transform; past it
    /// requests get 429 at once. `maxConcurrency` and `maxQueue` bound distinct transforms; this bounds
    /// a flood of identical requests, which would otherwise all wait on one.
    public var maxRequests = 1024
    /// How much larger than the output a JPEG or WebP may stay when decoded reduced (shrink-on-load): 1
    /// reduces as far as the output size, as thumbor's JPEG loading does (Pillow's `draft`); 2 (Pillow's
    /// `thumbnail()` default) keeps results nearer a full-size resize and decodes more pixels.
    public var reducingGap = 1.0
    /// The pipeline's settings from the config file (defaults without one); the fields above that the
    /// server owns (cache directory, source limits, deadline, shared tier, reducing gap) are set over it.
    public var pipeline = PipelineConfiguration()
    /// Quality by output format when a URL names none (imgproxy's `IMGPROXY_FORMAT_QUALITY` defaults: AVIF
    /// and WebP compress better than JPEG at the same number); a format not listed keeps the encoder's.
    public var formatQualities: [ImageFormat: Int] = [.avif: 63, .webp: 79, .jxl: 77]
    /// Accept imgproxy's security options (`max_src_resolution`, `max_result_dimension`, ...) in URLs.
    public var allowSecurityOptions = false
    /// The image `watermark`/`wm` lays over results; without one a URL's watermark is refused.
    public var watermarkFile: String?
    /// The quality `max_bytes` never goes below.
    public var maxBytesQualityFloor = 10

    public init() {}

    /// The defaults with each layer applied in order, later layers winning.
    public init(layers: [ServerSettings]) throws {
        self.init()
        for layer in layers { try apply(layer) }
    }

    /// Applies the settings that are present; checks each value.
    public mutating func apply(_ settings: ServerSettings) throws {
        if let host = settings.host { self.host = host }
        if let port = settings.port {
            guard (0...65535).contains(port) else { throw ServerConfigurationError("port \(port) is not in 0...65535") }
            self.port = port
        }
        if let directory = settings.cacheDir { cacheDirectory = URL(fileURLWithPath: directory) }
        if let keys = settings.keys { self.keys = keys }
        if let salts = settings.salts { self.salts = salts }
        if let presets = settings.presets { self.presets = presets }
        if let presetsOnly = settings.presetsOnly { self.presetsOnly = presetsOnly }
        if let sources = settings.allowedSources { allowedSources = sources }
        if let allow = settings.allowLoopbackSources { allowLoopbackSources = allow }
        if let allow = settings.allowPrivateSources { allowPrivateSources = allow }
        if let value = settings.maxConcurrency { maxConcurrency = try Self.positive(value, "maxConcurrency") }
        if let value = settings.maxQueue {
            guard value >= 0 else { throw ServerConfigurationError("maxQueue must be 0 or more, not \(value)") }
            maxQueue = value
        }
        if let value = settings.resultCache { resultCache = value }
        if let value = settings.resultMemoryBytes { resultMemoryBytes = try Self.positive(value, "resultMemoryBytes") }
        if let value = settings.maxSourceBytes { maxSourceBytes = try Self.positive(value, "maxSourceBytes") }
        if let value = settings.maxSourcePixels { maxSourcePixels = try Self.positive(value, "maxSourcePixels") }
        if let value = settings.maxAnimationFrames {
            maxAnimationFrames = try Self.positive(value, "maxAnimationFrames")
        }
        if let value = settings.requestDeadlineSeconds {
            guard value > 0, value.isFinite else {
                throw ServerConfigurationError("requestDeadlineSeconds must be more than 0, not \(value)")
            }
            requestDeadline = .milliseconds(Int64(value * 1000))
        }
        if let value = settings.resultMaxAge {
            guard value >= 0 else { throw ServerConfigurationError("resultMaxAge must be 0 or more, not \(value)") }
            resultMaxAge = value
        }
        if let value = settings.errorMaxAge {
            guard value >= 0 else { throw ServerConfigurationError("errorMaxAge must be 0 or more, not \(value)") }
            errorMaxAge = value
        }
        if let value = settings.sharedCache { sharedCache = value.isEmpty ? nil : value }
        if let value = settings.maxResultDimension {
            maxResultDimension = try Self.positive(value, "maxResultDimension")
        }
        if let value = settings.maxRequests { maxRequests = try Self.positive(value, "maxRequests") }
        if let value = settings.pipeline { pipeline = value }
        if let value = settings.reducingGap {
            guard value >= 1, value.isFinite else {
                throw ServerConfigurationError(
                    "reducingGap must be 1 or more (1 reduces to the output size), not \(value)")
            }
            reducingGap = value
        }
    }

    private static func positive(_ value: Int, _ name: String) throws -> Int {
        guard value > 0 else { throw ServerConfigurationError("\(name) must be more than 0, not \(value)") }
        return value
    }

    /// Whether URLs must be signed.
    public var requiresSignature: Bool { !keys.isEmpty }
}

/// A configuration value that cannot be used; the message names it and says what is allowed.
public struct ServerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
