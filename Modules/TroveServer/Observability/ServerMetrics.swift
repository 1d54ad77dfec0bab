import Prometheus

/// What the server counts, next to the pipeline's own metrics in one Prometheus registry:
/// `trove_serve_requests_total{status}`, `trove_serve_request_duration_seconds` (a histogram),
/// `trove_serve_result_cache_hits_total` (of which `trove_serve_event_loop_hits_total` were answered on
/// the event loop, and of those `trove_serve_express_hits_total` from the client's bytes, by
/// `ConnectionHandler`), `trove_serve_shared_results_total` (requests that waited for an
/// identical request's result instead of making their own), `trove_serve_rejected_total` (429s),
/// `trove_serve_access_log_dropped_total`, `trove_serve_write_timeouts_total` (connections closed because
/// their client took no bytes for the write timeout) and `trove_serve_unwritten_bytes` (bytes connections
/// have handed on and the kernel has not yet taken); `memory`'s gauges beside them. With `copy`, each is
/// counted there too (`--otel-metrics`: over OTLP).
struct ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    /// The same counts through the bootstrapped swift-metrics factory, when there is one.
    let copy: ServerMetricsCopy?
    /// The caches' counted bytes and the process's resident memory, set when `/metrics` is read.
    let memory: MemoryGauges
    private let byStatus: [Int: Counter]
    private let duration: DurationHistogram
    private let resultHits: Counter
    private let eventLoopHits: Counter
    private let expressHits: Counter
    private let rejected: Counter
    private let shared: Counter
    private let accessLogDropped: Counter
    private let writeTimeouts: Counter
    private let unwritten: Gauge

    private static var requestsName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "trove", subsystem: "serve", metricName: "requests", unitName: "total",
            helpText: "HTTP requests answered, by status.")
    }

    init(registry: PrometheusCollectorRegistry, copy: ServerMetricsCopy? = nil) {
        self.registry = registry
        self.copy = copy
        memory = MemoryGauges(registry: registry)
        var byStatus: [Int: Counter] = [:]
        // The usual statuses made up front, so answering one takes no registry lookup.
        for status in [200, 304, 400, 403, 404, 405, 413, 422, 429, 500, 502, 503, 504] {
            byStatus[status] = registry.makeCounter(descriptor: Self.requestsName, labels: [("status", String(status))])
        }
        self.byStatus = byStatus
        duration = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "request_duration",
                unitName: "seconds", helpText: "Time from request to answer."),
            buckets: [
                .microseconds(250), .milliseconds(1), .milliseconds(5), .milliseconds(20), .milliseconds(50),
                .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
                .seconds(5), .seconds(10)
            ])
        resultHits = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "result_cache_hits", unitName: "total",
                helpText: "Requests answered from the in-memory result cache."))
        eventLoopHits = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "event_loop_hits", unitName: "total",
                helpText: "Result-cache hits answered on the event loop, ahead of the router."))
        expressHits = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "express_hits", unitName: "total",
                helpText: "Event-loop hits answered from the request's bytes, ahead of HTTP decoding."))
        rejected = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "rejected", unitName: "total",
                helpText: "Requests answered 429 because every transform slot and queue place was taken."))
        shared = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "shared_results", unitName: "total",
                helpText: "Requests that waited for an identical request's result instead of making their own."))
        accessLogDropped = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "access_log_dropped", unitName: "total",
                helpText: "Access log lines dropped because the log's buffer was full."))
        writeTimeouts = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "write_timeouts", unitName: "total",
                helpText: "Connections closed because their client took no bytes for the write timeout."))
        unwritten = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "unwritten", unitName: "bytes",
                helpText: "Bytes of answers handed to connections that the kernel has not yet taken."))
    }

    func answered(status: Int, after elapsed: Duration) {
        (byStatus[status] ?? registry.makeCounter(descriptor: Self.requestsName, labels: [("status", String(status))]))
            .increment()
        duration.record(elapsed)
        if status == 429 { rejected.increment() }
        copy?.answered(status: status, after: elapsed)
    }

    func resultCacheHit() {
        resultHits.increment()
        copy?.resultCacheHit()
    }

    /// A hit answered on the event loop; `express` when from the request's bytes, ahead of HTTP decoding.
    func eventLoopHit(express: Bool) {
        eventLoopHits.increment()
        if express { expressHits.increment() }
        copy?.eventLoopHit(express: express)
    }

    func sharedResult() {
        shared.increment()
        copy?.sharedResult()
    }

    func accessLogLineDropped() {
        accessLogDropped.increment()
        copy?.accessLogLineDropped()
    }

    /// A connection was closed because its client took no bytes for the write timeout.
    func writeTimedOut() {
        writeTimeouts.increment()
        copy?.writeTimedOut()
    }

    /// `bytes` more (or, negative, fewer) are waiting on connections to be written.
    func unwrittenBytes(adding bytes: Int) {
        unwritten.increment(by: Double(bytes))
        copy?.unwrittenBytes(adding: bytes)
    }

    /// The Prometheus text exposition of every metric in the registry.
    func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
