/// How long a response stays fresh when its headers give no lifetime (no `max-age`, no `Expires`): the
/// heuristic of RFC 9111 §4.2.2. Either way it applies only to statuses the RFC calls heuristically
/// cacheable (200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501) or to a response marked `public`, and
/// never overrides a lifetime the response gives; another status without one is not stored.
public enum HeuristicFreshness: String, Sendable, Codable, CaseIterable {
    /// Fresh for `defaultFreshness` when set, else for the disk's `maxAge` (7 days): what image caches do,
    /// and the default.
    case cacheLifetime = "cache-lifetime"
    /// The RFC's own suggestion, as browsers do it: a tenth of the time between `Last-Modified` and the
    /// response's `Date`; without `Last-Modified`, stale at once (kept for revalidation).
    case lastModifiedFraction = "last-modified-fraction"
}
