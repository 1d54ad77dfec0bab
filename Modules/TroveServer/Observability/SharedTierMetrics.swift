import Trove

/// Each shared tier in `/metrics`, labelled by its name (`tier="redis"`, `tier="s3"`; a stack has one of
/// each): `trove_shared_tier_hits_total`, `_misses_total`, `_stores_total`, `_errors_total`,
/// `_skipped_total` (values over its size limit), `_copied_up_total` (values found in a tier below and
/// copied into it) and `trove_shared_tier_circuit_open` (1 while its breaker is open or probing). Read from
/// the pipeline when asked; nothing without a shared tier. The stack as a whole keeps the pipeline's own
/// names: `trove_cache_hits_total{tier="shared"}`, `trove_shared_tier_unavailable_total`, ...
enum SharedTierMetrics {
    /// The lines in Prometheus' text format.
    static func exposition(_ status: SharedTierStatus?) -> [UInt8] {
        guard let status, !status.tiers.isEmpty else { return [] }
        let families: [(name: String, type: String, help: String, value: (SharedTierLayerStatus) -> Int)] = [
            ("hits_total", "counter", "Reads this shared tier answered with a value.", \.statistics.hits),
            ("misses_total", "counter", "Reads this shared tier had no value for.", \.statistics.misses),
            ("stores_total", "counter", "Values this shared tier stored.", \.statistics.stores),
            ("errors_total", "counter", "Calls to this shared tier that failed.", \.statistics.errors),
            (
                "skipped_total", "counter", "Values not stored in this shared tier: over its size limit.",
                \.statistics.skipped
            ),
            ("copied_up_total", "counter", "Values found in a tier below this one and copied into it.", \.copiedUp),
            (
                "circuit_open", "gauge", "1 while this shared tier's circuit breaker is open or probing.",
                { $0.breaker == .closed ? 0 : 1 }
            )
        ]
        var text = ""
        for family in families {
            let name = "trove_shared_tier_\(family.name)"
            text += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for tier in status.tiers {
                text += "\(name){tier=\"\(tier.name)\"} \(family.value(tier))\n"
            }
        }
        return Array(text.utf8)
    }
}
