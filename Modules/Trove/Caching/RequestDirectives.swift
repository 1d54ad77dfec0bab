import TroveCore

/// What a data request's own `Cache-Control` asks of the caches (RFC 9111 §5.2.1): how old or how stale a
/// stored response it accepts, and whether the caches may answer or keep the answer at all. A private cache
/// heeds its own user, so these hold for `DataRequest` (an image request's fields only go to the origin).
/// `Pragma` is not read: RFC 9111 deprecates it.
package struct RequestDirectives: Sendable, Equatable {
    /// `max-age`: no stored response older than this many seconds.
    var maxAge: Int?
    /// `max-stale`: a stored response up to this many seconds past its freshness will do (`Int.max` when
    /// the directive names no limit), unless it said must-revalidate.
    var maxStale: Int?
    /// `min-fresh`: only a stored response that stays fresh for at least this many more seconds.
    var minFresh: Int?
    /// `no-cache`: nothing stored answers before the origin has confirmed it.
    var noCache = false
    /// `no-store`: the answer is kept nowhere; as browsers do, nothing stored answers either.
    var noStore = false
    /// `only-if-cached`: never the network; a miss fails with `notCached` (the 504 RFC 9111 gives it).
    var onlyIfCached = false

    /// A request that asks nothing.
    init() {}

    /// The directives among these request header fields (the name in any case). A directive whose value is
    /// not delta-seconds is ignored, as RFC 9111 §4 allows for an invalid one.
    init(headers: [String: String]) {
        guard let value = headers.value(named: "cache-control") else { return }
        for directive in CacheDirectives.directives(in: value) {
            let seconds = directive.value.flatMap(CacheDirectives.deltaSeconds)
            switch directive.name {
            case "max-age": maxAge = seconds ?? maxAge
            case "max-stale": maxStale = directive.value == nil ? Int.max : seconds ?? maxStale
            case "min-fresh": minFresh = seconds ?? minFresh
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "only-if-cached": onlyIfCached = true
            default: break
            }
        }
    }

    /// Whether the request limits which stored copies may answer it (by age, by freshness left, or none
    /// without the origin): memory, which keeps no dates to judge by, does not answer it, and a stale copy
    /// does not stand in for a failed origin (RFC 9111 §4.2.4).
    var judgesStoredCopies: Bool { maxAge != nil || minFresh != nil || noCache || noStore }

    /// Whether a stored response of this current age, fresh for `freshFor` more seconds (negative: stale
    /// by that much), may answer without the origin.
    func accepts(age: Int, freshFor: Double, mustRevalidate: Bool) -> Bool {
        if noCache || noStore { return false }
        if let maxAge, age > maxAge { return false }
        if let minFresh { return freshFor >= Double(minFresh) }
        if freshFor > 0 { return true }
        guard let maxStale, !mustRevalidate else { return false }
        return -freshFor <= Double(maxStale)
    }
}
