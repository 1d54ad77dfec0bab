import Foundation
import TroveCore
import TroveDiskCache
import TroveFetcher

/// The HTTP caching rules (RFC 9111, for a private cache) as one pipeline hears them: when a response
/// stops being fresh, whether it may be stored, when a cached copy may be used without asking the origin,
/// and when a stale copy may stand in for a failed origin (stale-if-error). Every stage asks this one
/// value; none reads the headers or the configuration's freshness settings itself.
package struct FreshnessPolicy: Sendable {
    /// Set by `PipelineConfiguration.ignoresCacheHeaders`: every response is fresh for `defaultFreshness`.
    let ignoresCacheHeaders: Bool
    /// The lifetime of a response whose headers give none; nil: fresh for as long as the disk keeps it.
    let defaultFreshness: Duration?
    /// The disk's max age: when an entry without an expiry counts as stale.
    let diskMaxAge: Duration
    /// How long past its freshness a copy may still stand in for an origin that failed transiently.
    let staleIfErrorBound: Duration

    init(_ configuration: PipelineConfiguration) {
        ignoresCacheHeaders = configuration.ignoresCacheHeaders
        defaultFreshness = configuration.defaultFreshness
        diskMaxAge = configuration.disk.maxAge
        staleIfErrorBound = configuration.staleIfErrorBound
    }

    // MARK: - A cached entry

    /// Whether a cached entry may be used without asking the origin: younger than the request's own max
    /// age when it has one, else not past the expiry its response set.
    func isFresh(_ entry: DiskEntry, maxAge: Duration?, now: Date = Date()) -> Bool {
        if let maxAge { return now.timeIntervalSince(entry.metadata.created) < maxAge.timeInterval }
        return entry.metadata.expires.map { $0 > now } ?? true
    }

    /// When the entry's response stops being fresh: its expiry, else the disk's max age.
    func staleSince(_ entry: DiskEntry) -> Date {
        entry.metadata.expires ?? entry.metadata.created.addingTimeInterval(diskMaxAge.timeInterval)
    }

    /// Whether the entry may be delivered without a successful revalidation: always while its response is
    /// fresh, and once stale only when the response did not say must-revalidate (RFC 9111 §4.2.4).
    func mayDeliverUnrevalidated(_ entry: DiskEntry, now: Date = Date()) -> Bool {
        !entry.metadata.mustRevalidate || staleSince(entry) > now
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

    // MARK: - A response received now

    /// The response's caching directives as this pipeline hears them: none when it ignores cache headers.
    private func directives(of metadata: ResponseMetadata) -> CacheDirectives {
        ignoresCacheHeaders ? .none : metadata.directives
    }

    /// Whether a response received now must be revalidated once stale, by its headers unless the
    /// configuration ignores them.
    func mustRevalidate(_ metadata: ResponseMetadata) -> Bool {
        directives(of: metadata).mustRevalidate
    }

    /// When a response received now stops being fresh (nil: never, within the disk's max age), and whether
    /// it may be stored at all, by its headers unless the configuration ignores them.
    func freshness(of metadata: ResponseMetadata, now: Date = Date()) -> (expires: Date?, storable: Bool) {
        let directives = directives(of: metadata)
        let lifetime = directives.freshness ?? defaultFreshness
        return (lifetime.map { now.addingTimeInterval($0.timeInterval) }, !directives.noStore)
    }

    /// The entry metadata a 200 response is stored with: its validators, content type, expiry and
    /// must-revalidate.
    func entryMetadata(for response: ResponseMetadata, expires: Date?) -> DiskEntryMetadata {
        DiskEntryMetadata(
            validators: response.validators, contentType: response.contentType,
            expires: expires, mustRevalidate: mustRevalidate(response))
    }

    /// A cached entry's metadata after a 304: fresh again from now, with the 304's validators when it sent
    /// any. A 304's Cache-Control replaces the stored one; without one the stored directive stands.
    func revalidated(_ metadata: DiskEntryMetadata, by response: ResponseMetadata, now: Date = Date())
        -> DiskEntryMetadata
    {
        var refreshed = metadata
        refreshed.created = now
        refreshed.expires = freshness(of: response, now: now).expires
        if !response.validators.isEmpty { refreshed.validators = response.validators }
        if response.cacheControl != nil { refreshed.mustRevalidate = mustRevalidate(response) }
        return refreshed
    }

    /// How long the shared tier keeps a copy: for as long as it is fresh (no expiry: the disk's max age).
    func sharedTTL(expires: Date?) -> Duration {
        expires.map { Duration.milliseconds(Int64($0.timeIntervalSinceNow * 1000)) } ?? diskMaxAge
    }
}
