import CoreMetrics
import TroveCore

/// What a pipeline counts, reported through swift-metrics (so any backend an app bootstraps sees it).
/// Labels: trove_cache_hits_total / trove_cache_misses_total {tier}, trove_fetches_total,
/// trove_fetched_bytes_total, trove_coalesced_joins_total, trove_failures_total {kind},
/// trove_stale_delivered_total (stale copies delivered because the origin failed),
/// trove_results_processed_total (results made from an original: decoded, transformed, encoded), of them
/// trove_results_planar_total (made from YCbCr planes, `PlanarRoute`); for the shared tier
/// (tier="shared" on hits and misses) trove_shared_tier_unavailable_total (calls that went on without it),
/// trove_shared_tier_bypassed_total (skipped while its breaker was open), trove_shared_tier_rejected_total
/// (values that failed to decode) and trove_shared_tier_lease_waits_total (misses that waited for a lease).
struct PipelineMetrics: Sendable {
    enum Tier: String { case memory, disk, shared }

    enum Event {
        case hit(Tier), miss(Tier), fetch, bytesFetched(Int), coalescedJoin, failure(FailureKind), staleDelivered
        /// A result made from an original (not read back from a cache).
        case resultProcessed
        /// Of those, one made from YCbCr planes (`PlanarRoute`) rather than RGBA.
        case resultPlanar
        /// Of those, one whose decode ran while its source arrived (`StreamedPlanarDecode`).
        case resultStreamedPlanar
        case sharedUnavailable, sharedBypassed, sharedRejected, sharedLeaseWait
        /// A source a crash was traced to was marked; a request for a marked source was refused.
        case poisonedSourceMarked, poisonedSourceRefused
    }

    private let memoryHits, memoryMisses, diskHits, diskMisses, fetches, bytes, joins, staleDeliveries: Counter
    private let sharedHits, sharedMisses, sharedUnavailable, sharedBypassed, sharedRejected, sharedLeaseWaits: Counter
    private let poisonedMarked, poisonedRefused, resultsProcessed, resultsPlanar, resultsStreamedPlanar: Counter
    private let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
        memoryHits = Counter(label: "trove_cache_hits_total", dimensions: [("tier", "memory")], factory: factory)
        memoryMisses = Counter(label: "trove_cache_misses_total", dimensions: [("tier", "memory")], factory: factory)
        diskHits = Counter(label: "trove_cache_hits_total", dimensions: [("tier", "disk")], factory: factory)
        diskMisses = Counter(label: "trove_cache_misses_total", dimensions: [("tier", "disk")], factory: factory)
        fetches = Counter(label: "trove_fetches_total", factory: factory)
        bytes = Counter(label: "trove_fetched_bytes_total", factory: factory)
        joins = Counter(label: "trove_coalesced_joins_total", factory: factory)
        staleDeliveries = Counter(label: "trove_stale_delivered_total", factory: factory)
        sharedHits = Counter(label: "trove_cache_hits_total", dimensions: [("tier", "shared")], factory: factory)
        sharedMisses = Counter(label: "trove_cache_misses_total", dimensions: [("tier", "shared")], factory: factory)
        sharedUnavailable = Counter(label: "trove_shared_tier_unavailable_total", factory: factory)
        sharedBypassed = Counter(label: "trove_shared_tier_bypassed_total", factory: factory)
        sharedRejected = Counter(label: "trove_shared_tier_rejected_total", factory: factory)
        sharedLeaseWaits = Counter(label: "trove_shared_tier_lease_waits_total", factory: factory)
        poisonedMarked = Counter(label: "trove_poisoned_sources_marked_total", factory: factory)
        poisonedRefused = Counter(label: "trove_poisoned_sources_refused_total", factory: factory)
        resultsProcessed = Counter(label: "trove_results_processed_total", factory: factory)
        resultsPlanar = Counter(label: "trove_results_planar_total", factory: factory)
        resultsStreamedPlanar = Counter(label: "trove_results_streamed_decode_total", factory: factory)
    }

    func record(_ event: Event) {
        switch event {
        case .hit(.memory): memoryHits.increment()
        case .miss(.memory): memoryMisses.increment()
        case .hit(.disk): diskHits.increment()
        case .miss(.disk): diskMisses.increment()
        case .hit(.shared): sharedHits.increment()
        case .miss(.shared): sharedMisses.increment()
        case .sharedUnavailable: sharedUnavailable.increment()
        case .sharedBypassed: sharedBypassed.increment()
        case .sharedRejected: sharedRejected.increment()
        case .sharedLeaseWait: sharedLeaseWaits.increment()
        case .fetch: fetches.increment()
        case let .bytesFetched(count): bytes.increment(by: count)
        case .coalescedJoin: joins.increment()
        case .staleDelivered: staleDeliveries.increment()
        case .poisonedSourceMarked: poisonedMarked.increment()
        case .poisonedSourceRefused: poisonedRefused.increment()
        case .resultProcessed: resultsProcessed.increment()
        case .resultPlanar: resultsPlanar.increment()
        case .resultStreamedPlanar: resultsStreamedPlanar.increment()
        case let .failure(kind):
            Counter(label: "trove_failures_total", dimensions: [("kind", kind.rawValue)], factory: factory).increment()
        }
    }
}

/// Failure categories for metrics: few enough to be a metric dimension.
enum FailureKind: String, Sendable {
    case notFound = "not_found", clientError = "http_4xx", serverError = "http_5xx", timeout, connection
    case tooLarge = "too_large", undecodable, cancelled, previouslyFailed = "previously_failed", other

    init(_ error: any Error) {
        switch error as? TroveError {
        case let .httpStatus(status, _)?:
            self = status == 404 || status == 410 ? .notFound : status >= 500 ? .serverError : .clientError
        case let .serverBusy(status, _, _)?: self = status >= 500 ? .serverError : .clientError
        case .timedOut?, .deadlineExceeded?: self = .timeout
        case .connectionFailed?, .lengthMismatch?, .tooManyRedirects?, .untrustedCertificate?: self = .connection
        case .tooLarge?, .imageTooLarge?: self = .tooLarge
        case .unsupportedFormat?, .decodingFailed?: self = .undecodable
        case .cancelled?: self = .cancelled
        case .previouslyFailed?, .poisonedSource?: self = .previouslyFailed
        default: self = error is CancellationError ? .cancelled : .other
        }
    }
}
