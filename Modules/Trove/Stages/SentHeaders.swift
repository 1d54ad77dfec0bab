import TroveCore

/// The header fields a request sends: its own over the pipeline's defaults (an image pipeline's `Accept`,
/// with the configuration's headers over them), names compared without regard to case. What `Vary` is
/// matched against, in every tier.
struct SentHeaders: Sendable {
    /// What a request with no headers of its own sends.
    let base: [String: String]

    init(configured: [String: String], defaults: [String: String]) {
        base = Self.merging(configured, over: defaults)
    }

    /// The headers a request with these of its own sends.
    func callAsFunction(_ own: [String: String]) -> [String: String] {
        own.isEmpty ? base : Self.merging(own, over: base)
    }

    /// `top` over `base`: a name in both (in any case) keeps `top`'s spelling and value.
    static func merging(_ top: [String: String], over base: [String: String]) -> [String: String] {
        var merged = base
        for (name, value) in top {
            for existing in merged.keys where existing.caseInsensitiveEquals(name) { merged[existing] = nil }
            merged[name] = value
        }
        return merged
    }
}
