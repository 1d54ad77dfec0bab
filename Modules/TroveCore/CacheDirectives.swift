import Foundation

/// What a response says about caching it, read from `Cache-Control`, `Expires`, `Date` and `Age` by the
/// rules RFC 9111 gives a private cache. A fetcher fills it in; the pipeline applies it, unless the
/// configuration says to ignore response headers.
package struct CacheDirectives: Sendable, Equatable {
    /// `no-store`: keep it nowhere, not even in memory.
    package var noStore: Bool
    /// `no-cache`: may be stored, but must be revalidated before every use. The qualified form,
    /// `no-cache="field, ..."`, leaves the response reusable and only keeps the fields it names out of the
    /// stored copy (RFC 9111 §5.2.2.4; `HeaderField.storedWithResponse` drops them), unless it names a field
    /// the cache itself reads (`fieldsCachingReads`): then it counts as plain `no-cache`.
    package var noCache: Bool
    /// `must-revalidate`: once stale, never used without a successful revalidation (no stale-if-error).
    package var mustRevalidate: Bool
    /// How long the response stays fresh from when it was received, its age already taken off; nil when
    /// the response says nothing (the configured default applies).
    package var freshness: Duration?
    /// `public`: the origin marked the response cacheable, so a heuristic lifetime may apply whatever its
    /// status (RFC 9111 §4.2.2).
    package var isPublic = false
    /// `must-understand`: a cache that implements the response's status may store it despite `no-store`
    /// (RFC 9111 §5.2.2.3); whether Trove does is for the pipeline, which knows the status.
    package var mustUnderstand = false
    /// `stale-while-revalidate` (RFC 5861 §3): for this long past its freshness the response may be
    /// delivered at once while a revalidation runs behind it.
    package var staleWhileRevalidate: Duration?

    /// Directives given field by field; the defaults describe a response that says nothing about caching.
    package init(
        noStore: Bool = false, noCache: Bool = false, mustRevalidate: Bool = false,
        freshness: Duration? = nil
    ) {
        self.noStore = noStore
        self.noCache = noCache
        self.mustRevalidate = mustRevalidate
        self.freshness = freshness
    }

    /// A response that says nothing about caching.
    package static let none = CacheDirectives()

    /// Reads the headers of a response received at `receivedAt`, each given as one field value; see
    /// `init(fields:receivedAt:)`.
    package init(cacheControl: String?, expires: String?, date: String?, age: String?, receivedAt: Date) {
        let pairs = [("Cache-Control", cacheControl), ("Expires", expires), ("Date", date), ("Age", age)]
        self.init(
            fields: pairs.compactMap { name, value in value.map { HeaderField(name: name, value: $0) } },
            receivedAt: receivedAt)
    }

    /// Reads every `Cache-Control`, `Expires`, `Date` and `Age` line of a response received at
    /// `receivedAt`. `max-age` wins over `Expires`; the first `max-age` counts when there are several
    /// (RFC 9111 §4.2.1); an `Expires` that is not one valid HTTP-date (or that comes twice) means "already
    /// stale"; the age (the first member of the first `Age` line, or how far `Date` lies behind the receipt)
    /// is subtracted from the lifetime. Where directives conflict the most restrictive wins: `no-cache`
    /// makes any lifetime zero.
    package init(fields: [HeaderField], receivedAt: Date) {
        self.init()
        var maxAge: Int?
        for directive in Self.directives(in: fields.values(named: "cache-control").joined(separator: ",")) {
            switch directive.name {
            case "no-store": noStore = true
            case "no-cache" where Self.unreusableFields(directive.value) == nil: noCache = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "public": isPublic = true
            case "must-understand": mustUnderstand = true
            case "stale-while-revalidate":
                staleWhileRevalidate = directive.value.flatMap(Self.deltaSeconds).map { .seconds($0) }
            // The first max-age counts; a malformed one means stale.
            case "max-age" where maxAge == nil: maxAge = directive.value.flatMap(Self.deltaSeconds) ?? 0
            default: break  // s-maxage and private are for shared caches; the rest we do not use
            }
        }
        let expires = fields.values(named: "expires")
        // The lifetime comes from max-age, else Expires; with neither, the Date header matters to nothing.
        if maxAge != nil || !expires.isEmpty {
            let served = fields.first(named: "date").flatMap(HTTPDate.parse)
            let lifetime =
                maxAge
                ?? (expires.count == 1 ? HTTPDate.parse(expires[0]) : nil).map {
                    max(0, Int($0.timeIntervalSince(served ?? receivedAt).rounded(.down)))
                } ?? 0
            let apparentAge = served.map { max(0, Int(receivedAt.timeIntervalSince($0).rounded(.down))) } ?? 0
            freshness = .seconds(max(0, lifetime - max(apparentAge, Self.age(in: fields) ?? 0)))
        }
        if noCache { freshness = .zero }
    }

    /// The `Age` a response carries: the first member of its first line (RFC 9111 §5.1), nil when absent
    /// or not delta-seconds (then it is ignored).
    package static func age(in fields: [HeaderField]) -> Int? {
        guard let line = fields.first(named: "age") else { return nil }
        let first = line.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
        return deltaSeconds(first.trimmingCharacters(in: .whitespaces))
    }

    /// `name` or `name=value` items of a Cache-Control value, names lowercased, a quoted value unquoted.
    /// Commas inside a quoted string do not split items. The grammar allows no space before `=`: an item
    /// written so (`max-age =5`) is its directive with an empty value, which no directive can use: a
    /// `max-age` means stale, as RFC 9111 §4.2.1 encourages for invalid freshness (a space after `=` spoils
    /// the value the same way), and a request's `max-stale` is not taken as "any staleness".
    package static func directives(in value: String) -> [(name: String, value: String?)] {
        var items: [(String, String?)] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        func finish() {
            let item = current.trimmingCharacters(in: .whitespaces)
            current = ""
            guard !item.isEmpty else { return }
            guard let equals = item.firstIndex(of: "=") else {
                items.append((item.lowercased(), nil))
                return
            }
            var argument = String(item[item.index(after: equals)...])
            if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") {
                argument = String(argument.dropFirst().dropLast()).replacingOccurrences(of: "\\", with: "")
            }
            let name = item[..<equals]
            let spaced = name.last?.isWhitespace == true
            items.append((name.trimmingCharacters(in: .whitespaces).lowercased(), spaced ? "" : argument))
        }
        for character in value {
            if escaped {
                escaped = false
            } else if inQuotes && character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == "," && !inQuotes {
                finish()
                continue
            }
            current.append(character)
        }
        finish()
        return items
    }

    /// The fields a cache reads to keep and reuse a response: a qualified `no-cache` naming one of them
    /// cannot be honoured by leaving it out, so it counts as plain `no-cache`.
    static let fieldsCachingReads: Set<String> = [
        "cache-control", "vary", "date", "age", "expires", "etag", "last-modified", "content-type",
        "content-encoding", "content-length"
    ]

    /// The lower-case field names a qualified `no-cache` lists (`no-cache="a, b"`), to be left out of the
    /// stored copy; nil for the unqualified form, or one that names a field in `fieldsCachingReads`.
    package static func unreusableFields(_ value: String?) -> [String]? {
        let names = value?.listedNames ?? []
        return names.isEmpty || names.contains(where: fieldsCachingReads.contains) ? nil : names
    }

    /// RFC 9111 delta-seconds: digits only; a value too large to hold is capped (2^31, as the RFC says).
    package static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text.prefix(10)).map { min($0, 1 << 31) } ?? (1 << 31)
    }
}
