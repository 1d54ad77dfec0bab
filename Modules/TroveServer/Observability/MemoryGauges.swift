import Prometheus
import Synchronization
import TroveMemoryCache

/// What the server's memory holds, read when `/metrics` is asked, so an operator sees each cache's
/// counted bytes beside the process's resident memory:
/// `trove_serve_result_cache_{bytes,limit_bytes,entries}` and `trove_serve_result_cache_evictions_total`
/// (each of the cache's shards evicts once its share of the limit is full), `trove_memory_cache_{bytes,limit_bytes,entries}`
/// (the pipeline's decoded images) and `process_resident_memory_bytes` (Linux).
/// A class: the eviction count it has reported is state shared by every copy of the metrics.
final class MemoryGauges: Sendable {
    private let resultBytes: Gauge
    private let resultLimit: Gauge
    private let resultEntries: Gauge
    private let resultEvictions: Counter
    private let memoryBytes: Gauge
    private let memoryLimit: Gauge
    private let memoryEntries: Gauge
    private let resident: Gauge
    /// Evictions already added to `resultEvictions`: the cache counts its own, the counter only grows.
    private let evictionsReported = Mutex(0)

    init(registry: PrometheusCollectorRegistry) {
        func gauge(_ subsystem: String, _ name: String, _ unit: String, _ help: String) -> Gauge {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(
                    namespace: "trove", subsystem: subsystem, metricName: name, unitName: unit, helpText: help))
        }
        resultBytes = gauge("serve", "result_cache", "bytes", "Bytes the result cache counts for its entries.")
        resultLimit = gauge("serve", "result_cache_limit", "bytes", "The result cache's byte limit.")
        resultEntries = gauge("serve", "result_cache", "entries", "Results the result cache holds.")
        resultEvictions = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "trove", subsystem: "serve", metricName: "result_cache_evictions", unitName: "total",
                helpText: "Results dropped to stay within the limit."))
        memoryBytes = gauge("memory", "cache", "bytes", "Bytes the decoded-image memory cache counts.")
        memoryLimit = gauge("memory", "cache_limit", "bytes", "The decoded-image memory cache's byte limit.")
        memoryEntries = gauge("memory", "cache", "entries", "Images the decoded-image memory cache holds.")
        resident = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "process", subsystem: "resident", metricName: "memory", unitName: "bytes",
                helpText: "The process's resident memory (RSS)."))
    }

    /// Sets every gauge from the caches and the process as they are now.
    func refresh<Result, Image>(results: MemoryCache<String, Result>?, images: MemoryCache<String, Image>) {
        if let results {
            let stats = results.stats
            resultBytes.set(Double(stats.totalCost))
            resultLimit.set(Double(results.configuration.costLimit))
            resultEntries.set(Double(stats.count))
            let added = evictionsReported.withLock { reported in
                defer { reported = max(reported, stats.evictions) }
                return max(0, stats.evictions - reported)
            }
            if added > 0 { resultEvictions.increment(by: Int64(added)) }
        }
        let stats = images.stats
        memoryBytes.set(Double(stats.totalCost))
        memoryLimit.set(Double(images.configuration.costLimit))
        memoryEntries.set(Double(stats.count))
        if let bytes = CgroupMemoryPressure.residentBytes() { resident.set(Double(bytes)) }
    }
}
