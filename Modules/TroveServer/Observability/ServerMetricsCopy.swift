import CoreMetrics
import TroveCore

/// What `ServerMetrics` counts, counted again through a swift-metrics factory other than the Prometheus
/// registry behind `/metrics`: swift-otel's, bootstrapped into `MetricsSystem` by `--otel-metrics`, so
/// the same counters go out over OTLP under the same names and labels (`trove_serve_requests_total` with
/// `status`, `trove_serve_request_duration_seconds`, ...). The memory gauges, set only when `/metrics` is
/// read, are not copied. Absent (one nil check per count) unless a factory is bootstrapped.
struct ServerMetricsCopy: Sendable {
    private let factory: any MetricsFactory
    private let byStatus: [Int: Counter]
    private let duration: Timer
    private let resultHits: Counter
    private let eventLoopHits: Counter
    private let expressHits: Counter
    private let rejected: Counter
    private let shared: Counter
    private let accessLogDropped: Counter
    private let writeTimeouts: Counter
    private let unwritten: Meter

    /// The process's bootstrapped factory, or nil while it is swift-metrics' no-op one.
    static var bootstrapped: (any MetricsFactory)? {
        let factory = MetricsSystem.factory
        return factory is NOOPMetricsHandler ? nil : factory
    }

    init(factory: any MetricsFactory) {
        self.factory = factory
        var byStatus: [Int: Counter] = [:]
        for status in [200, 304, 400, 403, 404, 405, 413, 422, 429, 500, 502, 503, 504] {
            byStatus[status] = Self.requests(status: status, factory: factory)
        }
        self.byStatus = byStatus
        duration = Timer(label: "trove_serve_request_duration_seconds", factory: factory)
        func counter(_ name: String) -> Counter { Counter(label: "trove_serve_\(name)_total", factory: factory) }
        resultHits = counter("result_cache_hits")
        eventLoopHits = counter("event_loop_hits")
        expressHits = counter("express_hits")
        rejected = counter("rejected")
        shared = counter("shared_results")
        accessLogDropped = counter("access_log_dropped")
        writeTimeouts = counter("write_timeouts")
        unwritten = Meter(label: "trove_serve_unwritten_bytes", factory: factory)
    }

    private static func requests(status: Int, factory: any MetricsFactory) -> Counter {
        Counter(label: "trove_serve_requests_total", dimensions: [("status", String(status))], factory: factory)
    }

    func answered(status: Int, after elapsed: Duration) {
        (byStatus[status] ?? Self.requests(status: status, factory: factory)).increment()
        duration.recordNanoseconds(elapsed.nanoseconds)
        if status == 429 { rejected.increment() }
    }

    func resultCacheHit() { resultHits.increment() }

    func eventLoopHit(express: Bool) {
        eventLoopHits.increment()
        if express { expressHits.increment() }
    }

    func sharedResult() { shared.increment() }

    func accessLogLineDropped() { accessLogDropped.increment() }

    func writeTimedOut() { writeTimeouts.increment() }

    func unwrittenBytes(adding bytes: Int) {
        if bytes >= 0 { unwritten.increment(by: Double(bytes)) } else { unwritten.decrement(by: Double(-bytes)) }
    }
}
