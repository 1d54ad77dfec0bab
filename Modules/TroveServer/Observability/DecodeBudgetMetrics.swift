import Trove

/// The decode memory budget in `/metrics`, after the registry's own lines: its size, the bytes reserved
/// and the requests waiting now, and refusals by cause (`too_large`: 422, `queue_full`: 429, `deadline`:
/// 503). Read from the budget when asked, so the numbers are never stale; nothing without a budget. Also the
/// work on large sources whose request gave up (its deadline passed) before it finished.
enum DecodeBudgetMetrics {
    /// The lines in Prometheus' text format.
    static func exposition(_ snapshot: DecodeMemoryBudget.Snapshot?) -> [UInt8] {
        let abandoned = """
            # HELP trove_decodes_abandoned_total Decodes of large sources whose request gave up (past its deadline) before they ended.
            # TYPE trove_decodes_abandoned_total counter
            trove_decodes_abandoned_total \(DecodeThreads.shared.abandoned)

            """
        guard let snapshot else { return Array(abandoned.utf8) }
        var text =
            abandoned + """
                # HELP trove_decode_memory_budget_bytes The most bytes all decodes may hold at once.
                # TYPE trove_decode_memory_budget_bytes gauge
                trove_decode_memory_budget_bytes \(snapshot.capacity)
                # HELP trove_decode_memory_reserved_bytes Bytes reserved by the decodes running now.
                # TYPE trove_decode_memory_reserved_bytes gauge
                trove_decode_memory_reserved_bytes \(snapshot.reserved)
                # HELP trove_decode_memory_waiting Requests waiting for decode memory.
                # TYPE trove_decode_memory_waiting gauge
                trove_decode_memory_waiting \(snapshot.waiting)
                # HELP trove_decode_memory_refusals_total Requests the decode memory budget refused, by cause.
                # TYPE trove_decode_memory_refusals_total counter

                """
        for cause in DecodeMemoryBudget.Refusal.allCases {
            text += "trove_decode_memory_refusals_total{cause=\"\(cause.rawValue)\"} \(snapshot.refusals[cause] ?? 0)\n"
        }
        return Array(text.utf8)
    }
}
