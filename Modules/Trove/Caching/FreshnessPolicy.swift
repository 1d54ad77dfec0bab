import Foundation
import TroveCore
import TroveDiskCache
import TroveFetcher

/// The HTTP caching rules (RFC 9111, for a private cache) as one pipeline hears them: when a response
/// stops being fresh, whether it may be stored, when a cached copy may be used without asking the origin,
/// and when a stale copy may stand in for a failed origin (stale-if-error). Every stage asks this one
/// value; none reads the headers or the configuration's freshness settings itself. What a 304 does to a
/// stored response is in `FreshnessPolicy+Revalidation.swift`.
package struct FreshnessPolicy: Sendable {
    /// Set by `PipelineConfiguration.ignoresCacheHeaders`: every response is fresh for `defaultFreshness`.
    let ignoresCacheHeaders: Bool
    /// The lifetime of a response whose headers give none; nil: fresh for as long as the disk keeps it.
    let defaultFreshness: Duration?
    /// Which heuristic gives a lifetime to a response whose headers give none.
    let heuristic: HeuristicFreshness
    /// The disk's max age: when an entry without an expiry counts as stale.
    let diskMaxAge: Duration
    /// How long past its freshness a copy may still stand in for an origin that failed transiently.
    let staleIfErrorBound: Duration

    init(_ configuration: PipelineConfiguration) {
        ignoresCacheHeaders = configuration.ignoresCacheHeaders
        defaultFreshness = configuration.defaultFreshness
        heuristic = configuration.heuristicFreshness
        diskMaxAge = configuration.disk.maxAge
        staleIfErrorBound = configuration.staleIfErrorBound
    }

    /// Statuses RFC 9110 §15.1 calls heuristically cacheable (206 aside: partial content is never stored).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The statuses whose caching requirements Trove implements, so that `must-understand` lets it store
    /// them despite `no-store`: every final status RFC 9110 §15 defines but 206 (partial content is never
    /// stored). An unknown status, such as 599, keeps its no-store.
    static let understoodStatuses = Set(200...205).union(300...308).subtracting([305, 306])
        .union(400...417).union(421...426).union([500, 501, 502, 503, 504, 505])

    /// Whether a response with these directives and status may not be stored: no-store, unless
    /// must-understand names a status Trove implements (RFC 9111 §5.2.2.3).
    static func forbidsStoring(_ directives: CacheDirectives, status: Int) -> Bool {
        directives.noStore && !(directives.mustUnderstand && understoodStatuses.contains(status))
    }

    // MARK: - A cached entry

    /// Whether a cached entry may be used without asking the origin: younger than the request's own max
    /// age when it has one, else not past the expiry its response set.
    func isFresh(_ entry: DiskEntry, maxAge: Duration?, now: Date = Date()) -> Bool {
        if let maxAge { return now.timeIntervalSince(entry.metadata.created) < maxAge.timeInterval }
        return entry.metadata.expires.map { $0 > now } ?? true
    }

    /// Whether a cached entry may answer a request without the origin: fresh by `isFresh` when the request
    /// asks nothing of the caches, else as its own directives allow (which may take a stale one: `max-stale`).
    func mayAnswer(_ entry: DiskEntry, maxAge: Duration?, asked: RequestDirectives, now: Date = Date()) -> Bool {
        guard asked != RequestDirectives() else { return isFresh(entry, maxAge: maxAge, now: now) }
        if let maxAge, now.timeIntervalSince(entry.metadata.created) >= maxAge.timeInterval { return false }
        return asked.accepts(
            age: Self.currentAge(of: entry.metadata, now: now), freshFor: staleSince(entry).timeIntervalSince(now),
            mustRevalidate: entry.metadata.mustRevalidate)
    }

    /// When the entry's response stops being fresh: its expiry, else the disk's max age.
    func staleSince(_ entry: DiskEntry) -> Date {
        entry.metadata.expires ?? entry.metadata.created.addingTimeInterval(diskMaxAge.timeInterval)
    }

    /// Whether the entry may be delivered without a successful revalidation: always while its response is
    /// fresh, and once stale only when the response did not say must-revalidate or no-cache (RFC 9111
    /// §4.2.4, §5.2.2.4).
    func mayDeliverUnrevalidated(_ entry: DiskEntry, now: Date = Date()) -> Bool {
        !entry.metadata.mustRevalidate || staleSince(entry) > now
    }

    /// stale-while-revalidate (RFC 5861 §3): whether a stale entry may be delivered at once to a request
    /// that asks nothing of its own, while a revalidation runs behind it. Only within the window its
    /// response gave, never once must-revalidate or no-cache, nor when cache headers are ignored.
    func mayServeWhileRevalidating(_ entry: DiskEntry, for request: RawRequest, now: Date = Date()) -> Bool {
        guard !ignoresCacheHeaders, request.policy == .useCache, request.usesCaches, request.maxAge == nil,
            request.asked == RequestDirectives(), !entry.metadata.mustRevalidate,
            let window = CacheDirectives(fields: entry.metadata.headerFields, receivedAt: entry.metadata.created)
                .staleWhileRevalidate
        else { return false }
        return now.timeIntervalSince(staleSince(entry)) < window.timeInterval
    }

    /// stale-if-error: whether the entry is still close enough to its freshness to stand in for an origin
    /// that failed transiently.
    func isWithinStaleBound(_ entry: DiskEntry, now: Date = Date()) -> Bool {
        now.timeIntervalSince(staleSince(entry)) < staleIfErrorBound.timeInterval
    }

    /// A failure of the origin that a stale copy may stand in for: what a retry could fix, a request that
    /// ran out of time, or a certificate that stopped passing its check (an expired one, say). A refused
    /// handshake carries no bytes, so the copy served is one fetched earlier, under the TLS options of the
    /// process that fetched it (entries do not record them). Never a lasting answer such as 404, nor a
    /// cancellation.
    static func isOriginFailure(_ error: any Error) -> Bool {
        switch error as? TroveError {
        case .deadlineExceeded?, .untrustedCertificate?: return true
        default: return RetryPolicy.isTransient(error)
        }
    }

    /// The entry's current age in whole seconds (RFC 9111 §4.2.3): the age it had when received (the
    /// larger of its `Age` and how far its `Date` lay behind the receipt) plus the time since.
    static func currentAge(of metadata: DiskEntryMetadata, now: Date = Date()) -> Int {
        let fields = metadata.headerFields
        let apparent = fields.first(named: "date").flatMap(HTTPDate.parse).map {
            max(0, Int(metadata.created.timeIntervalSince($0).rounded(.down)))
        }
        let initial = max(apparent ?? 0, CacheDirectives.age(in: fields) ?? 0)
        return initial + max(0, Int(now.timeIntervalSince(metadata.created).rounded(.down)))
    }

    // MARK: - A response received now

    /// The response's caching directives as this pipeline hears them: none when it ignores cache headers.
    private func directives(of metadata: ResponseMetadata) -> CacheDirectives {
        ignoresCacheHeaders ? .none : metadata.directives
    }

    /// Whether a response received now must be revalidated once stale (must-revalidate), or before every
    /// use (no-cache, whose copy is stale at once), by its headers unless the configuration ignores them.
    func mustRevalidate(_ metadata: ResponseMetadata) -> Bool {
        let directives = directives(of: metadata)
        return directives.mustRevalidate || directives.noCache
    }

    /// When a response received now stops being fresh (nil: never, within the disk's max age), and whether
    /// it may be stored at all: never for no-store, partial content (206) or `Vary: *`, and for a status
    /// that is not heuristically cacheable only with a lifetime of its own.
    func freshness(of metadata: ResponseMetadata, now: Date = Date()) -> (expires: Date?, storable: Bool) {
        if ignoresCacheHeaders {
            return (defaultFreshness.map { now.addingTimeInterval($0.timeInterval) }, metadata.statusCode != 206)
        }
        let directives = metadata.directives
        guard !Self.forbidsStoring(directives, status: metadata.statusCode), metadata.statusCode != 206,
            Vary.names(in: metadata.headerFields) != .any
        else {
            return (nil, false)
        }
        return lifetime(status: metadata.statusCode, fields: metadata.headerFields, directives: directives, now: now)
    }

    /// The expiry of a response with these fields and directives, received `now`, and whether it may be
    /// stored: its own lifetime, else the configured heuristic for a status that allows one.
    func lifetime(status: Int, fields: [HeaderField], directives: CacheDirectives, now: Date)
        -> (expires: Date?, storable: Bool)
    {
        if let freshness = directives.freshness { return (now.addingTimeInterval(freshness.timeInterval), true) }
        guard Self.heuristicallyCacheable.contains(status) || directives.isPublic else { return (nil, false) }
        switch heuristic {
        case .cacheLifetime:
            return (defaultFreshness.map { now.addingTimeInterval($0.timeInterval) }, true)
        case .lastModifiedFraction:
            // RFC 9111 §4.2.2: a tenth of the time since Last-Modified, as of the response's Date.
            guard let modified = fields.first(named: "last-modified").flatMap(HTTPDate.parse) else {
                return (now, true)
            }
            let served = fields.first(named: "date").flatMap(HTTPDate.parse) ?? now
            let lifetime = max(0, served.timeIntervalSince(modified)) / 10
            let age = max(TimeInterval(CacheDirectives.age(in: fields) ?? 0), now.timeIntervalSince(served))
            return (now.addingTimeInterval(max(0, lifetime - max(0, age)).rounded(.down)), true)
        }
    }

    /// Client errors whose answer depends on credentials, timing or load: never remembered, whatever their
    /// headers say.
    static let passingClientErrors: Set<Int> = [401, 403, 407, 408, 421, 425, 429]

    /// Whether a failed fetch is remembered: a lasting error (`TroveError.isLasting`: 404, 410, bytes that
    /// are not an image), or another client error that RFC 9110 calls heuristically cacheable (405, 414) or
    /// whose answer gave a lifetime of its own (RFC 9111 lets a cache reuse it while fresh), but not one in
    /// `passingClientErrors`. Server errors never are: a retry may fix them.
    func remembers(_ error: any Error, response: ResponseMetadata?) -> Bool {
        guard let error = error as? TroveError else { return false }
        if error.isLasting { return true }
        guard !ignoresCacheHeaders, case let .httpStatus(status, _) = error, (400...499).contains(status),
            !Self.passingClientErrors.contains(status)
        else { return false }
        return Self.heuristicallyCacheable.contains(status) || response?.directives.freshness != nil
    }

    /// How long a lasting failure (a 404, a 410) is remembered: for as long as the answer says it is fresh
    /// when it gives a lifetime (zero: not at all), else for `standard` (the configuration's 10 minutes).
    func failureLifetime(of response: ResponseMetadata?, standard: Duration) -> Duration {
        guard !ignoresCacheHeaders, let response else { return standard }
        if Self.forbidsStoring(response.directives, status: response.statusCode) { return .zero }
        return response.directives.freshness ?? standard
    }

    /// The entry metadata a 200 response is stored with: its status, header fields, validators, content
    /// type, expiry and must-revalidate.
    func entryMetadata(for response: ResponseMetadata, expires: Date?, now: Date = Date()) -> DiskEntryMetadata {
        var metadata = DiskEntryMetadata(
            validators: response.validators, contentType: response.contentType, created: now,
            expires: expires, mustRevalidate: mustRevalidate(response))
        metadata.status = response.statusCode
        metadata.headerFields = response.headerFields.storedWithResponse
        return metadata
    }

    /// How long the shared tier keeps a copy: for as long as it is fresh (no expiry: the disk's max age).
    func sharedTTL(expires: Date?) -> Duration {
        expires.map { Duration.milliseconds(Int64($0.timeIntervalSinceNow * 1000)) } ?? diskMaxAge
    }
}
