import Foundation

/// A pipeline-wide rule for the source part of cache keys, applied on top of the normalisation every key
/// gets (`CacheKey.normalized`: lowercase scheme and host, no default port, no fragment) and before any
/// hashing, so every tier (memory, disk, the shared tier, the failure memory) and `forget(url:)` agree.
///
/// Its main use is a CDN's signed URLs: the same image comes back under a new `Expires` and `Signature` each
/// time, and without the rule each one is a new entry and a new download. The URL fetched is never changed;
/// only the key is. A request with its own `customCacheKey` keeps that key as it is.
///
/// ```swift
/// var configuration = PipelineConfiguration()
/// configuration.cacheKeyRule = CacheKeyRule(droppedQueryParameters: ["Signature", "Expires", "X-Amz-*"])
/// ```
public struct CacheKeyRule: Sendable, Hashable, Codable {
    /// Query parameters left out of the key, by name, compared exactly (names are case-sensitive, as servers
    /// read them). A name ending in `*` drops every parameter that begins with the rest (`X-Amz-*`).
    public var droppedQueryParameters: Set<String>
    /// Puts the remaining query parameters in name order, so `?w=1&h=2` and `?h=2&w=1` share an entry;
    /// parameters of one name keep their order. Off by default: some origins read the order.
    public var sortsQueryParameters: Bool

    /// A rule that drops `droppedQueryParameters` and, when asked, sorts the rest; the defaults change nothing.
    public init(droppedQueryParameters: Set<String> = [], sortsQueryParameters: Bool = false) {
        self.droppedQueryParameters = droppedQueryParameters
        self.sortsQueryParameters = sortsQueryParameters
    }

    /// True when the rule leaves every key as `CacheKey.normalized` makes it (the default).
    package var isIdentity: Bool { droppedQueryParameters.isEmpty && !sortsQueryParameters }

    /// The key source for `url`: its normalised form with the rule's parameters dropped (and the rest sorted
    /// when asked). A URL left with no parameters loses its `?`.
    package func source(for url: URL) -> String {
        let normalized = CacheKey.normalized(url)
        guard !isIdentity, var parts = URLComponents(string: normalized),
            let items = parts.percentEncodedQueryItems
        else { return normalized }
        var kept = items.enumerated().filter { !drops($0.element.name.removingPercentEncoding ?? $0.element.name) }
        if sortsQueryParameters {
            kept.sort { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }
        }
        parts.percentEncodedQueryItems = kept.isEmpty ? nil : kept.map(\.element)
        return parts.string ?? normalized
    }

    /// Whether a parameter of this (decoded) name is left out of the key.
    private func drops(_ name: String) -> Bool {
        if droppedQueryParameters.contains(name) { return true }
        return droppedQueryParameters.contains { pattern in
            pattern.hasSuffix("*") && name.hasPrefix(pattern.dropLast())
        }
    }
}

extension CacheKey {
    /// The key of an image request under a pipeline's key rule and settings: the rule shapes the source
    /// unless the request has a custom key. A request that keeps its colour profile or drops its copyright
    /// notice adds that to the settings: both change the encoded result.
    package init(_ request: ImageRequest, rule: CacheKeyRule, pipelineSettings: String? = nil) {
        var settings = pipelineSettings.map { [$0] } ?? []
        if request.options.contains(.keepsColorProfile) { settings.append("profile=keep") }
        if request.options.contains(.dropsCopyright) { settings.append("copyright=drop") }
        // Results made before images were turned upright by default carry no marker: they are never reused.
        settings.append(
            request.options.contains(.keepsStoredOrientation) ? "orientation=stored" : "orientation=upright")
        self.init(
            source: request.customCacheKey ?? rule.source(for: request.url),
            transforms: request.transforms.map(\.identifier), encoding: request.outputFormat,
            encodingOptions: request.encodingOptions,
            encodesInSourceFormat: request.options.contains(.encodesInSourceFormat),
            pipelineSettings: settings.joined(separator: ","))
    }
}
