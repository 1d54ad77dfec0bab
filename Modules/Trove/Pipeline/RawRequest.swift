import Foundation
import TroveCore
import TroveDiskCache

/// What the stages before decode need to know about one request, whether it came as an image or a data request.
struct RawRequest: Sendable {
    let url: URL
    /// The raw cache key (normalised URL or the custom key).
    let key: String
    let policy: CachePolicy
    let retryFailed: Bool
    let headers: [String: String]
    /// Who waits for the bytes (a request, or the job of a request's processed result): its priority, its
    /// progress and its wish for previews.
    var waiter: JobWaiter
    /// The request's own max age, overriding the freshness rules.
    var maxAge: Duration? = nil
    /// What a data request's `Cache-Control` asks of the caches; an image request asks nothing.
    var asked = RequestDirectives()
    /// The HTTP method and body sent (GET and none for images).
    var method = "GET"
    var body: Data? = nil
    /// False for a request whose answer no cache may keep or give (a POST that did not opt in): it goes to
    /// the origin every time, and its failures are not remembered.
    var usesCaches = true
    /// A prefetch to disk: the body goes into the disk entry as it arrives and the result carries its
    /// length, not its bytes (see `RawResult.streamedLength`).
    var streamsToDisk = false
    /// A processed result looked up in the shared tier (`ImagePipeline.sharedOrMade`), not an original.
    var isResult = false

    /// Whether sending it twice does what sending it once does (RFC 9110: GET, HEAD, OPTIONS, TRACE, PUT,
    /// DELETE), so a transient failure may be retried.
    var isIdempotent: Bool { ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(method) }
    /// How its fetch is shared: with every identical request in flight, unless the origin may act on each
    /// one and no cache keeps the answer.
    /// A request with a `Range` goes alone too: its answer may be a part, which no other request may get;
    /// so does one with conditions of its own (the origin's 304 answers only it) or with `Cache-Control`
    /// directives (which decide what its fetch may take from the shared tier).
    var fetchKind: WorkKey.Kind {
        (usesCaches || isIdempotent) && !asksForRange && !asksConditionally && asked == RequestDirectives()
            ? .load : .alone(waiter: waiter.id)
    }
    /// The key its fetch is coalesced and its waiters are joined under.
    var fetchKey: WorkKey { WorkKey(key, fetchKind, policy: policy) }
    /// The key its revalidation is coalesced under: a ranged request's goes alone, as its fetch does.
    var revalidationKey: WorkKey { WorkKey(key, asksForRange ? fetchKind : .revalidate, policy: policy) }
    /// Whether the request sends a `Range` (any case).
    var asksForRange: Bool { headers.keys.contains { $0.caseInsensitiveEquals("range") } }
    /// Whether the request sends a condition of its own (`If-None-Match`, `If-Modified-Since`): forwarded on
    /// a miss, and left out of a revalidation, which asks with the stored validators alone.
    var asksConditionally: Bool { headers.keys.contains { HTTPConditions.isConditionField($0) } }
}

/// Bytes from the disk cache or the network.
struct RawResult: Sendable {
    let data: Data
    let source: ResultSource
    let contentType: String?
    /// When these bytes stop being fresh; nil: fresh for as long as they are cached.
    var expires: Date? = nil
    /// False for a `no-store` response: hand it over, keep it nowhere.
    var storable = true
    /// A copy past its freshness: delivered because the origin failed transiently, while it is revalidated
    /// behind the answer (stale-while-revalidate), or because the request took it (`max-stale`).
    var isStale = false
    /// Set when the body went straight into the disk entry as it arrived (a prefetch): `data` is empty,
    /// and this is the body's length.
    var streamedLength: Int? = nil
    /// The response's status code (200 for sources that are not HTTP).
    var status = 200
    /// The response's header fields; from a cache, as stored (updated by 304s) with the copy's `Age`.
    var headerFields: [HeaderField] = []
    /// The request fields that selected the response (`Vary`), which a later request must match.
    var selecting: [SelectingField] = []
    /// The decoder that claimed the bytes when an image pipeline checked them (`AcceptCheck`); nil when
    /// nothing has looked yet.
    var decoder: (any ImageDecoder)? = nil

    /// Bytes read from a disk entry (or a shared tier's), answered `now`.
    init(_ entry: DiskEntry, isStale: Bool = false, source: ResultSource = .disk, now: Date = Date()) {
        self.init(
            data: entry.data, source: source, contentType: entry.metadata.contentType,
            expires: entry.metadata.expires, isStale: isStale)
        status = entry.metadata.status
        selecting = entry.metadata.selecting
        let fields = entry.metadata.headerFields
        // A cache that answers from a stored response says how old it is (RFC 9111 §5.1).
        if !fields.isEmpty {
            headerFields =
                fields.filter { !$0.name.caseInsensitiveEquals("age") }
                + [HeaderField(name: "Age", value: String(FreshnessPolicy.currentAge(of: entry.metadata, now: now)))]
        }
    }

    /// Fetched bytes with what came with them.
    init(fetched data: Data, _ response: ResponseMetadata, expires: Date?, storable: Bool) {
        self.init(
            data: data, source: .network, contentType: response.contentType, expires: expires, storable: storable)
        status = response.statusCode
        headerFields = response.headerFields
    }

    init(
        data: Data, source: ResultSource, contentType: String?, expires: Date? = nil, storable: Bool = true,
        isStale: Bool = false, streamedLength: Int? = nil
    ) {
        self.streamedLength = streamedLength
        self.data = data
        self.source = source
        self.contentType = contentType
        self.expires = expires
        self.storable = storable
        self.isStale = isStale
    }

    /// Whether the memory tier may keep it: storable and still fresh (a stale or no-cache copy is
    /// revalidated before every use, which a memory hit would skip).
    var keepsInMemory: Bool { storable && !isStale && (expires.map { $0 > Date() } ?? true) }

    /// How long the memory tier may keep it: until it expires; nil for no limit of its own.
    var memoryTTL: Duration? {
        expires.map { .milliseconds(Int64(max(0, $0.timeIntervalSinceNow) * 1000)) }
    }
}

/// What the origin answered: bytes, or (to a conditional fetch) that the cached ones stand.
enum OriginAnswer: Sendable {
    case fetched(RawResult)
    /// 304: the cached bytes stand, with the stored response updated (fields, expiry) as given.
    case notModified(DiskEntryMetadata)
}
