import CoreMetrics
import Foundation
import Logging
import Tracing
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache
import TroveTransformers

/// How to compose an `ImagePipeline` from a registry. Each module's own settings are nested whole (`memory`,
/// `disk`, `scheduler`, `retryPolicy`), so every setting is reachable. Plugins are named by typed names that
/// accept string literals, so a config file or CLI flags can say them; an unknown name fails when the
/// pipeline is built.
public struct PipelineConfiguration: Sendable {
    /// Where the disk cache lives: `defaultCacheDirectory` unless set; nil turns the disk cache off and keeps
    /// everything in memory (`PipelineConfiguration.memoryOnly`).
    public var cacheDirectory: URL?
    /// Whether fetched originals are stored on disk (default true). False keeps only processed results
    /// there: for a server behind a CDN, which is rarely asked for one source twice, it saves a file written
    /// (and its directory made) on every miss. A prefetch without a shared tier streams its original to disk
    /// either way; a data pipeline, whose results are its originals, keeps nothing on disk with it off.
    public var keepsOriginalsOnDisk = true
    /// Key hasher for disk entry names: `.sha256` (the default), `.md5`, or a plugin's (`"djb2"`).
    public var hasher: HasherName = .sha256
    /// Memory cache eviction policy: `.lru` (the default), `.fifo`, `.lfu`, `.sieve`, `.s3fifo`, `.wtinylfu`,
    /// or a plugin's.
    public var memoryEviction: EvictionPolicyName = .lru
    /// Disk cache eviction policy: `.lru` (the default), `.fifo`, `.lfu`, `.sieve`, `.s3fifo`, `.wtinylfu`, or
    /// a plugin's.
    public var diskEviction: EvictionPolicyName = .lru
    /// Disk entry compressor: `.none` (the default), `.zlib`, or a plugin's; its level is `disk.compressionLevel`.
    public var compressor: CompressorName = .none
    /// The memory tier's own settings: `costLimit` (default 20% of physical or container memory, at most
    /// 512 MiB), `countLimit` (none), `maxEntryCostFraction` (0.1) and `defaultTTL`: how long a result whose
    /// response set no expiry (no max-age or Expires, and no `defaultFreshness`) stays in memory; nil (the
    /// default) keeps it until evicted. A result with an expiry leaves memory at it.
    public var memory = MemoryCacheConfiguration()
    /// When the memory tier gives memory back on its own: the pipeline polls the process's cgroup (v2
    /// `memory.events` high and max counts, `memory.pressure`) and its resident memory against the container's
    /// limit every 2 s, and on pressure trims the memory cache to half its limits. The disk is untouched. See
    /// `MemoryPressureOptions`.
    public var memoryPressure = MemoryPressureOptions()
    /// The disk tier's own settings: `byteLimit` (500 MiB, headers included), `countLimit` (none), `maxAge`
    /// (7 days; also the freshness of a response whose headers give none when `defaultFreshness` is nil),
    /// `compressionLevel` (the compressor's default; one it rejects fails the pipeline's creation naming the
    /// level), `lowWaterFraction` (0.8), `fsync` (off), `payloadVerification` (`.whenFileChanges`),
    /// `writeQueueByteLimit` (64 MiB of write-behind stores; `flush()` waits for them) and `staleRetention`.
    /// Stale entries are kept for the longer of `staleRetention` and `staleIfErrorBound`, so a copy that may
    /// still be delivered is never removed first.
    public var disk = DiskCacheConfiguration()
    /// How long a response stays fresh when its headers say nothing (no Cache-Control max-age, no
    /// Expires); nil keeps it fresh until `disk.maxAge`.
    public var defaultFreshness: Duration?
    /// The lifetime of a response whose headers give none: `.cacheLifetime` (the default: `defaultFreshness`,
    /// else `disk.maxAge`) or `.lastModifiedFraction` (RFC 9111's 10% of the time since `Last-Modified`).
    public var heuristicFreshness = HeuristicFreshness.cacheLifetime
    /// Ignore Cache-Control, Expires and Age, for origins that send nonsense: every response is fresh for
    /// `defaultFreshness` and may be stored.
    public var ignoresCacheHeaders = false
    /// How long past its freshness a cached copy may still be delivered, marked stale, when revalidating it
    /// fails for a transient reason (stale-if-error); stale copies are kept on disk this long.
    public var staleIfErrorBound: Duration = .seconds(24 * 3600)
    /// The idle timeout of one fetch: it fails with `timedOut` when the origin sends nothing for this long.
    public var fetchTimeout: Duration = .seconds(15)
    /// The whole request's time, queueing and retries included; past it the request fails with
    /// `deadlineExceeded` (or is answered by a stale copy, when one is cached). A failure is retried only
    /// when the retry can finish in time: an idle timeout only when a whole `fetchTimeout` still fits before
    /// the deadline, so with the defaults (15 s, 20 s) an origin that never answers fails once, after 15 s.
    public var requestDeadline: Duration = .seconds(20)
    /// Largest body accepted from a fetch.
    public var maxBytes: Int = 50 << 20
    /// Bounds on pixels, decoded bytes and frames; an image past the first two fails (`imageTooLarge`,
    /// `tooLargeToDecode`), an animation past `maxFrames` keeps its first frames.
    public var decodingLimits: DecodingLimits = .default
    /// The most bytes all decodes at once may hold (decoded frames and transform buffers, worked out from
    /// each source's header before decoding); nil (the default) for no bound. A decode that does not fit
    /// waits its turn, first in, first out, until `requestDeadline` (`decodeMemoryWaitExpired`); a source
    /// that alone needs more is refused at once (`tooLargeToDecode`). Bounds a batch of `trove get` or a
    /// server's memory by what it decodes, not by how many requests it runs.
    public var decodeMemoryBudget: Int?
    /// Most requests waiting for room in `decodeMemoryBudget`; past it they fail with `decodeMemoryBusy`.
    /// The server sets its `maxQueue`; a library waits without a bound.
    package var decodeMemoryQueueLimit = Int.max
    /// How much larger than a downscaling transform's output a decoder's reduced image must stay, per axis
    /// (Pillow's `reducing_gap`): 2 (the default, as Pillow's `thumbnail()` and libvips) keeps results
    /// within a hair of a full-size resize; 1 reduces as far as the output size, as thumbor's
    /// JPEG loading does, for speed.
    public var shrinkOnLoadReducingGap: Double = ShrinkOnLoad.defaultReducingGap
    /// The least time between two previews of one download, for requests with `.deliversPreviews`; default
    /// 100 ms. Each preview is an image decode, so this bounds their cost.
    public var previewInterval: Duration = .milliseconds(100)
    /// How long a source's body must still be arriving after its first piece for a planar result's decode to
    /// follow it as it comes, rather than start after its last byte; default 2 ms, nil never. A slow origin's
    /// answer then comes about a decode sooner; a body that arrives within it (a loopback or LAN origin's) is
    /// decoded whole, as following it would cost a few percent more CPU for no gain.
    public var streamedDecodeGate: Duration? = .milliseconds(2)
    /// How URLs become cache keys beyond the standard normalisation: query parameters to drop by name (a CDN's
    /// expiring signature) and whether to sort the rest. Every tier and `forget(url:)` use it; the default
    /// changes nothing. See `CacheKeyRule`.
    public var cacheKeyRule = CacheKeyRule()
    /// Sent with every fetch; a request's own headers win.
    public var headers: [String: String] = [:]
    /// Encoding options for processed results.
    public var encodingOptions: EncodingOptions = .init()
    /// At most this many fetches at once (6), and per host (6); queue order FIFO or LIFO.
    public var scheduler: FetchSchedulerConfiguration = .init()
    /// Retries for transient failures (timeouts, lost connections, 5xx, 429): 2, with backoff and jitter.
    public var retryPolicy: RetryPolicy = .init()
    /// How long a lasting failure (404, 410, not an image) is remembered; zero turns the memory off.
    public var failedURLTTL: Duration = .seconds(600)
    /// When set (with a cache directory), a crash journal in the cache directory records the source each
    /// thread is decoding, transforming or encoding; a source that was being worked on when the process died
    /// of a fatal signal (a trap, a segfault) is refused with `TroveError.poisonedSource` for this long, by
    /// this process once restarted and, through the shared tier, by the rest of the fleet. One killed
    /// without a signal (SIGKILL, the OOM killer) while in flight twice is refused too. Nil (the default in
    /// the library; `trove serve` sets an hour): no journal.
    public var crashGuard: Duration?
    /// The fleet's shared cache tiers below the disk, top first, each made by the registry's shared-tier
    /// factory for its URL's scheme (install `TroveRedisPlugin`, `TroveS3Plugin`); empty: no shared tier.
    /// Two or more are used as one stack: `[redis://…, s3://…]` reads Redis, then S3 (copying an S3 hit up
    /// into Redis), writes and deletes both, and takes its leases from Redis.
    public var sharedCaches: [URL] = []
    /// The only shared tier, e.g. `redis://host:6379/0` (the first of `sharedCaches`); setting it replaces
    /// `sharedCaches` with it alone, nil with none.
    package var sharedCache: URL? {
        get { sharedCaches.first }
        set { sharedCaches = newValue.map { [$0] } ?? [] }
    }
    /// Size limit, timeouts, connections and key prefix of the shared tier.
    public var sharedTierOptions: SharedTierOptions = .init()
    /// Leases, waiting and the circuit breaker around the shared tier.
    public var sharedTierPolicy: SharedTierPolicy = .init()
    /// Hooks that may veto fetches, change outgoing requests and decoded images; nil: none.
    public var delegate: (any PipelineDelegate)?
    /// Cookies for http(s) fetches: each request, and each redirect it follows, sends the store's cookies for
    /// its URL, and every response's `Set-Cookie` goes into the store. nil (the default) sends and keeps none.
    /// `CookieJar` keeps them in memory. Cached results are keyed by URL alone, cookies or not.
    public var cookieStore: (any CookieStore)?
    /// Cookies to start with, and the switch for an in-memory jar: `Set-Cookie` header values by the URL
    /// they count as coming from (`["https://example.com/": ["session=abc; Path=/"]]`). When set (even to
    /// `[:]`), a pipeline keeps cookies in `cookieStore`, or in a new `CookieJar` when that is nil, seeded with
    /// these: each fetch sends the cookies for its host and path, and keeps what responses set. nil (the
    /// default) adds nothing. `checkCookies` says what is wrong with a seed; a config file is checked as read.
    public var cookies: [String: [String]]?
    /// How https certificates are checked: the system's trust store by default; a CA bundle of your own, and
    /// hosts whose certificates are not checked at all (logged at warning when a pipeline starts). Making a
    /// pipeline throws `invalidConfiguration` when the CA bundle is not a readable PEM file.
    public var tls = TLSOptions()
    /// Where metrics go; nil uses the process's bootstrapped `MetricsSystem`.
    public var metricsFactory: (any MetricsFactory)?
    /// Where spans go (one per stage a request takes, children of the caller's current span); nil uses the
    /// process's bootstrapped `InstrumentationSystem.tracer`, read when the pipeline is built. With neither,
    /// tracing is off and costs nothing.
    public var tracer: (any Tracer)?
    /// Where the pipeline logs warnings (failed disk reads, refreshes answered from the cache); label "trove.pipeline".
    public var logger = Logger(label: "trove.pipeline")

    /// Defaults throughout, with the disk cache in `cacheDirectory`: the platform's cache directory unless
    /// given (`defaultCacheDirectory`); pass nil, or start from `memoryOnly`, for no disk cache.
    public init(cacheDirectory: URL? = PipelineConfiguration.defaultCacheDirectory) {
        self.cacheDirectory = cacheDirectory
    }

    /// Defaults throughout with no disk cache: results live in memory only, and nothing is written to disk
    /// (the failed-URL memory included).
    public static var memoryOnly: PipelineConfiguration { PipelineConfiguration(cacheDirectory: nil) }

    /// Where a configuration keeps its disk cache unless told otherwise: `$TROVE_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/trove`, else the platform's per-user cache directory: `~/.cache/trove` on Linux,
    /// `~/Library/Caches/trove` on Apple platforms.
    public static var defaultCacheDirectory: URL {
        defaultCacheDirectory(environment: ProcessInfo.processInfo.environment)
    }

    /// `defaultCacheDirectory` under `environment`; the home directory is `$HOME`, else the account's own.
    static func defaultCacheDirectory(environment: [String: String]) -> URL {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let directory = value("TROVE_CACHE_DIR") { return URL(fileURLWithPath: directory, isDirectory: true) }
        if let xdg = value("XDG_CACHE_HOME") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("trove", isDirectory: true)
        }
        let home = URL(fileURLWithPath: value("HOME") ?? NSHomeDirectory(), isDirectory: true)
        #if canImport(Darwin)
            return home.appendingPathComponent("Library/Caches/trove", isDirectory: true)
        #else
            return home.appendingPathComponent(".cache/trove", isDirectory: true)
        #endif
    }
}
