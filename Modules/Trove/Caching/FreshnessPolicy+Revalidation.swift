import Foundation
import TroveCore
import TroveDiskCache

// What a 304 does to a stored response (RFC 9111 §4.3.4): its header fields replace the stored ones of
// the same name, and the freshness comes from the response so updated, as if it had just been received.

extension FreshnessPolicy {
    /// A cached entry's metadata after a 304 received `now`: the stored fields updated from the 304's, and
    /// dates, validators, content type, expiry and must-revalidate worked out from the updated fields.
    /// `storable` is false when the updated response says no-store (the copy must go).
    func revalidated(_ metadata: DiskEntryMetadata, by response: ResponseMetadata, now: Date = Date())
        -> (metadata: DiskEntryMetadata, storable: Bool)
    {
        let stored = metadata.headerFields.isEmpty ? Self.fieldsOfOlderEntry(metadata) : metadata.headerFields
        let fresh = response.headerFields.storedWithResponse
        let merged = Self.updated(stored, with: fresh)
        var refreshed = metadata
        refreshed.created = now
        refreshed.headerFields = merged
        let etag = merged.first(named: "etag"), lastModified = merged.first(named: "last-modified")
        if etag != nil || lastModified != nil {
            refreshed.validators = Validators(etag: etag, lastModified: lastModified)
        }
        refreshed.contentType = merged.first(named: "content-type") ?? metadata.contentType
        if ignoresCacheHeaders {
            refreshed.expires = defaultFreshness.map { now.addingTimeInterval($0.timeInterval) }
            return (refreshed, true)
        }
        // The stored Date and Age describe the first receipt; without the 304's own, the response is as old as now.
        let timing: Set<String> = ["date", "age"]
        let sentTiming = Set(fresh.map { $0.name.lowercased() }).intersection(timing)
        let reckoned = merged.filter {
            !timing.contains($0.name.lowercased()) || sentTiming.contains($0.name.lowercased())
        }
        let directives = CacheDirectives(fields: reckoned, receivedAt: now)
        refreshed.mustRevalidate = directives.mustRevalidate || directives.noCache
        let (expires, storable) = lifetime(
            status: metadata.status, fields: reckoned, directives: directives, now: now)
        refreshed.expires = expires
        return (refreshed, storable && !Self.forbidsStoring(directives, status: metadata.status))
    }

    /// `stored` with each field `fresh` names replaced by the fresh ones (RFC 9111 §3.2), except
    /// Content-Length, which describes the stored body; a stored `Age` goes, as the copy is received anew.
    static func updated(_ stored: [HeaderField], with fresh: [HeaderField]) -> [HeaderField] {
        let kept: Set<String> = ["content-length"]
        let replaced = Set(fresh.map { $0.name.lowercased() }).subtracting(kept).union(["age"])
        return stored.filter { !replaced.contains($0.name.lowercased()) }
            + fresh.filter { !kept.contains($0.name.lowercased()) }
    }

    /// The fields an entry of format version 1 or 2 (which kept none) stands for: its validators, its
    /// content type, and must-revalidate as a directive.
    static func fieldsOfOlderEntry(_ metadata: DiskEntryMetadata) -> [HeaderField] {
        var fields: [HeaderField] = []
        if let etag = metadata.validators.etag { fields.append(HeaderField(name: "ETag", value: etag)) }
        if let modified = metadata.validators.lastModified {
            fields.append(HeaderField(name: "Last-Modified", value: modified))
        }
        if let type = metadata.contentType { fields.append(HeaderField(name: "Content-Type", value: type)) }
        if metadata.mustRevalidate { fields.append(HeaderField(name: "Cache-Control", value: "must-revalidate")) }
        return fields
    }
}
