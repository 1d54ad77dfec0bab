import Foundation

/// What a response says about caching it, read from `Cache-Control`, `Expires`, `Date` and `Age` by the
/// rules RFC 9111 gives a private cache. A fetcher fills it in; the pipeline applies it, unless the
/// configuration says to ignore response headers.
public struct CacheDirectives: Sendable, Equatable {
    /// `no-store`: keep it nowhere, not even in memory.
    public var noStore: Bool
    /// `no-cache`: may be stored, but must be revalidated before every use.
    public var noCache: Bool
    /// `must-revalidate`: once stale, never used without a successful revalidation (no stale-if-error).
    public var mustRevalidate: Bool
    /// How long the response stays fresh from when it was received, its age already taken off; nil when
    /// the response says nothing (the configured default applies).
    public var freshness: Duration?

    /// Directives given field by field; the defaults describe a response that says nothing about caching.
    public init(
        noStore: Bool = false, noCache: Bool = false, mustRevalidate: Bool = false,
        freshness: Duration? = nil
    ) {
        self.noStore = noStore
        self.noCache = noCache
        self.mustRevalidate = mustRevalidate
        self.freshness = freshness
    }

    /// A response that says nothing about caching.
    public static let none = CacheDirectives()

    /// Reads the headers of a response received at `receivedAt`. `max-age` wins over `Expires`; an
    /// `Expires` that is not a valid date means "already stale"; the age (the `Age` header, or how far
    /// `Date` lies behind the receipt) is subtracted from the lifetime.
    public init(cacheControl: String?, expires: String?, date: String?, age: String?, receivedAt: Date) {
        self.init()
        var maxAge: Int?
        for directive in Self.directives(in: cacheControl ?? "") {
            switch directive.name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "max-age": maxAge = directive.value.flatMap(Self.deltaSeconds) ?? 0  // malformed: stale
            default: break  // s-maxage and public/private are for shared caches; the rest we do not use
            }
        }
        // The lifetime comes from max-age, else Expires; with neither, the Date header matters to nothing
        // and is not read (every response passes here).
        if maxAge != nil || expires != nil {
            let served = date.flatMap(HTTPDate.parse)
            let lifetime =
                maxAge
                ?? HTTPDate.parse(expires ?? "").map {
                    max(0, Int($0.timeIntervalSince(served ?? receivedAt).rounded(.down)))
                } ?? 0
            let apparentAge = served.map { max(0, Int(receivedAt.timeIntervalSince($0).rounded(.down))) } ?? 0
            let age = max(apparentAge, age.flatMap(Self.deltaSeconds) ?? 0)
            freshness = .seconds(max(0, lifetime - age))
        }
        if noCache { freshness = .zero }
    }

    /// `name` or `name=value` items of a Cache-Control value, names lowercased, quotes removed.
    static func directives(in value: String) -> [(name: String, value: String?)] {
        value.split(separator: ",").compactMap { item in
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first, !name.isEmpty else { return nil }
            let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            return (name.lowercased(), argument)
        }
    }

    /// RFC 9111 delta-seconds: digits only; a value too large to hold is capped (2^31, as the RFC says).
    static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text.prefix(10)).map { min($0, 1 << 31) } ?? (1 << 31)
    }
}
