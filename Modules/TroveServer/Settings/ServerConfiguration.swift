import Foundation
import Logging
import Trove
import TroveMemoryCache

/// Everything `trove serve` needs to know, with the defaults a server on the open internet should have.
///
/// It nests the `PipelineConfiguration` its pipeline is built from (cache directory, source byte and pixel
/// limits, the request deadline, the shared tier, the reducing gap, and every other pipeline setting) and
/// adds only what a server alone has. `init()` states each default once; `init(configFile:environment:
/// arguments:)` layers a JSON file, the environment and `trove serve`'s flags over them, all read through
/// one list of settings (`ServerSetting.all`), which the help text also comes from.
public struct ServerConfiguration: Sendable {
    /// The address to listen on (loopback by default: put it behind a CDN or a reverse proxy).
    public var host = "127.0.0.1"
    /// The port; 0 lets the system pick a free one (printed when listening).
    public var port = 8080
    /// Hex keys for imgproxy signatures, paired with `salts`; several pairs allow key rotation. With none,
    /// unsigned URLs are accepted (and the server warns at start).
    public var keys: [String] = []
    /// Hex salts, one for each of `keys`.
    public var salts: [String] = []
    /// Bytes of the HMAC-SHA256 a signature carries (imgproxy's `IMGPROXY_SIGNATURE_SIZE`): 32, or fewer
    /// for signatures truncated to that many bytes.
    public var signatureSize = 32
    /// Named option strings (`"thumb": "rs:fill:300:300/q:80"`); `default` applies to every URL.
    public var presets: [String: String] = [:]
    /// Accept only `preset`/`pr` options in URLs.
    public var presetsOnly = false
    /// Source URL prefixes that are allowed (matched on a boundary); empty allows any http(s) source.
    public var allowedSources: [String] = []
    /// Lift the address rules for loopback sources (127.0.0.0/8, ::1).
    public var allowLoopbackSources = false
    /// Lift the address rules for private sources (link-local stays refused: cloud metadata answers there).
    public var allowPrivateSources = false
    /// Serve `s3://bucket/key` sources (imgproxy's `IMGPROXY_USE_S3`), read by the registry's `s3` fetcher
    /// (TroveS3's `S3Fetcher`) under `allowedSources`; while off they are refused, naming this setting.
    public var s3Sources = false
    /// The S3 endpoint `s3://` sources are read from, `http(s)://host[:port]` (imgproxy's
    /// `IMGPROXY_S3_ENDPOINT`); nil for AWS's in `s3Region`. `trove serve` gives it to the TroveS3 plugin.
    public var s3Endpoint: URL?
    /// The region `s3://` sources are signed for (imgproxy's `IMGPROXY_S3_REGION`); nil for `AWS_REGION`, else
    /// `AWS_DEFAULT_REGION`, else us-east-1.
    public var s3Region: String?
    /// At most this many transforms at once; further requests wait in a queue of `maxQueue`.
    public var maxConcurrency = ProcessInfo.processInfo.activeProcessorCount
    /// Requests that may wait for a transform; past it requests are answered 429 at once.
    public var maxQueue = ProcessInfo.processInfo.activeProcessorCount * 16
    /// Most image requests in progress at once, counting those that share another's transform; past it
    /// requests get 429 at once. `maxConcurrency` and `maxQueue` bound distinct transforms; this bounds
    /// a flood of identical requests, which would otherwise all wait on one.
    public var maxRequests = 1024
    /// Keep encoded results in memory (and on disk); false transforms every request (sources stay cached).
    public var resultCache = true
    /// Bytes of encoded results kept in memory.
    public var resultMemoryBytes = 256 << 20
    /// `Cache-Control: public, max-age` of results, in seconds (one year).
    public var resultMaxAge = 31_536_000
    /// `Cache-Control: public, max-age` of client errors, in seconds; 429 and 5xx answers carry `no-store`.
    public var errorMaxAge = 10
    /// Largest width or height of a result, and of the resized image it is cut from (imgproxy's
    /// `max_result_dimension`): larger asks are refused (400 from the URL's numbers, 422 once the source's
    /// size shows it), so no URL can make the server allocate gigapixels.
    public var maxResultDimension = 8192
    /// Time a connection has to send a whole request head once it opens; a slower one (a client trickling
    /// its header) is closed.
    public var headerReadTimeout: Duration = .seconds(10)
    /// Time an open connection may wait, after the last byte of an answer is written, for the head of its
    /// next request.
    public var keepAliveTimeout: Duration = .seconds(10)
    /// Time a connection with bytes still to write may go without its client taking any; a client that
    /// stops reading is closed then, and the buffers its answers held are let go.
    public var writeTimeout: Duration = .seconds(30)
    /// Most connections open at once; past it the server stops accepting until one closes, so further
    /// clients wait in the kernel's bounded backlog or are refused, never queued without bound.
    public var maxConnections = 4096
    /// After SIGTERM, how long `/health` fails while requests are still served, so a load balancer stops
    /// sending before the listener closes.
    public var healthGrace: Duration = .seconds(2)
    /// After SIGTERM, the most time the drain takes (health grace included) before the requests still
    /// running are cancelled.
    public var drainTimeout: Duration = .seconds(30)
    /// Quality by output format when a URL names none (imgproxy's `IMGPROXY_FORMAT_QUALITY` defaults: AVIF
    /// and WebP compress better than JPEG at the same number); a format not listed keeps the encoder's.
    public var formatQualities: [ImageFormat: Int] = [.avif: 63, .webp: 79, .jxl: 77]
    /// libavif's speed for AVIF results, 0 (smallest files) ... 10 (fastest). 8, measured in docs/BENCHMARKS.md
    /// ("AVIF encoder speed"): 0.41-0.55× speed 6's time for files 1.4-2.7% larger and 0.3-0.4 dB lower at the
    /// same quality; 9 is faster again but its files are 13% larger.
    package var avifSpeed = 8
    /// Whether results are turned upright by their EXIF orientation when a URL does not say (`auto_rotate`).
    public var autoRotate = true
    /// Accept imgproxy's security options (`max_src_resolution`, `max_result_dimension`, ...) in URLs.
    public var allowSecurityOptions = false
    /// The image `watermark`/`wm` lays over results; without one a URL's watermark is refused.
    public var watermarkFile: String?
    /// The quality `max_bytes` never goes below.
    public var maxBytesQualityFloor = 10
    // Delivery: how results are chosen and sent (`ServerSetting.delivery`).
    /// Formats answered to every client whose `Accept` lists them, even over a format the URL names
    /// (imgproxy's `IMGPROXY_ENFORCE_AVIF`/`WEBP`/`JXL`); AVIF first, then WebP, then JPEG XL.
    package var enforcedFormats: Set<ImageFormat> = []
    /// Formats a result may be in when neither its URL nor the client's `Accept` picks one (imgproxy's
    /// `IMGPROXY_PREFERRED_FORMATS`): a source in one of them keeps its format, any other is encoded in the
    /// first that can hold it (transparency, animation). Empty keeps every source's format.
    package var preferredFormats: [ImageFormat] = []
    /// Source formats answered as they are when the result would be in the same format, as if every URL
    /// said `skp` for them (imgproxy's `IMGPROXY_SKIP_PROCESSING_FORMATS`).
    package var skipProcessingFormats: Set<ImageFormat> = []
    /// Send strong ETags and answer a matching `If-None-Match` with 304 (imgproxy's `IMGPROXY_USE_ETAG`).
    package var useEntityTags = true
    /// Send the source's `Last-Modified` with results, and answer `If-Modified-Since` with 304 when the
    /// source is not newer (imgproxy's `IMGPROXY_USE_LAST_MODIFIED`).
    package var useLastModified = false
    /// Send the source's `Cache-Control` and `Expires`, when it had them, in place of `resultMaxAge`
    /// (imgproxy's `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`).
    package var cacheControlPassthrough = false
    /// The watermark's base opacity, 0 to 1, which a URL's watermark opacity multiplies (imgproxy's
    /// `IMGPROXY_WATERMARK_OPACITY`).
    package var watermarkOpacity = 1.0
    /// Keep a source's ICC profile, embedded in the result, instead of converting to sRGB (imgproxy's
    /// `IMGPROXY_STRIP_COLOR_PROFILE=false`); a URL's `strip_color_profile` overrides it.
    package var keepsColorProfile = false
    /// Leave the source's copyright notice (EXIF, XMP and IPTC rights fields) out of results (imgproxy's
    /// `IMGPROXY_KEEP_COPYRIGHT=false`); a URL's `keep_copyright` overrides it.
    package var dropsCopyright = false
    /// Read the client hints `Sec-CH-DPR`/`DPR` and `Sec-CH-Width`/`Width` as a URL's default dpr and width;
    /// answers then vary by them (imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS`).
    package var clientHints = false
    /// The least level a log line needs; `info` writes one access-log line per request.
    public var logLevel = Logger.Level.info
    /// Export spans over OTLP/HTTP (swift-otel, configured by the `OTEL_*` variables): `trove serve` then
    /// bootstraps the process's tracer before it builds the server (`OpenTelemetry.bootstrap`).
    public var openTelemetry = false
    /// Export the server's and the pipeline's metrics over OTLP/HTTP too (swift-otel's metrics backend, as
    /// the `OTEL_*` variables say), while `/metrics` stays; on with `OTEL_METRICS_EXPORTER=otlp`.
    public var openTelemetryMetrics = false
    /// The pipeline every request runs through. The server's own defaults differ from a library pipeline's
    /// in five places: 50 megapixels and 100 frames per source, a 30 s request deadline, a reducing gap
    /// of 1 (decode reduced down to the output size, as thumbor's JPEG loading does), and a decode memory
    /// budget of half the container's memory limit when it has one (`defaultDecodeMemoryBudget`). The server sets its
    /// scheduler and memory count limit itself (`ServerSetting.serverOwnedPipelineKeys`).
    public var pipeline: PipelineConfiguration

    /// The defaults.
    public init() {
        pipeline = PipelineConfiguration()
        pipeline.decodingLimits.maxPixels = 50_000_000
        pipeline.decodingLimits.maxFrames = 100
        pipeline.requestDeadline = .seconds(30)
        pipeline.shrinkOnLoadReducingGap = 1
        // A source that crashed a server is refused for an hour, here and across the fleet.
        pipeline.crashGuard = .seconds(3600)
        pipeline.decodeMemoryBudget = Self.defaultDecodeMemoryBudget(containerLimit: ContainerMemoryLimit.bytes())
    }

    /// Half of the container's memory limit; nil (no budget) outside a container with a limit. The other
    /// half is for what the budget does not count: the result cache (a fifth of the limit by default), the
    /// fetched sources and encoded results in flight, the runtime and the allocator's slack, which measured
    /// about 150 MB above the budget at its peak (docs/BENCHMARKS.md).
    static func defaultDecodeMemoryBudget(containerLimit: Int?) -> Int? {
        containerLimit.map { max(1, $0 / 2) }
    }

    /// Whether URLs must be signed.
    public var requiresSignature: Bool { !keys.isEmpty }
}

/// A configuration value that cannot be used; the message names it and says what is allowed.
public struct ServerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to write instead.
    public let description: String

    /// An error with its message.
    package init(_ description: String) {
        self.description = description
    }
}
