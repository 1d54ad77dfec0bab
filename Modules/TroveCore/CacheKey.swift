import Foundation

/// The two keys of a request: `raw` names the fetched bytes, `processed` the transformed result.
/// Requests that would give the same bytes share keys; requests that would not, never do.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    public let raw: String
    public let processed: String

    public init(raw: String, processed: String) {
        self.raw = raw
        self.processed = processed
    }

    public init(_ request: ImageRequest) {
        let raw = request.customCacheKey ?? CacheKey.normalized(request.url)
        var processed = raw
        if !request.transforms.isEmpty {
            processed += "|" + request.transforms.map(\.identifier).joined(separator: "|")
        }
        if let format = request.outputFormat {
            processed += "|encode=" + format.rawValue
        }
        self.init(raw: raw, processed: processed)
    }

    public var description: String { processed }

    /// Lowercases scheme and host, drops a default port and the fragment; keeps path and query as sent.
    public static func normalized(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        parts.scheme = parts.scheme?.lowercased()
        parts.host = parts.host?.lowercased()
        if (parts.scheme == "http" && parts.port == 80) || (parts.scheme == "https" && parts.port == 443) {
            parts.port = nil
        }
        parts.fragment = nil
        if parts.path.isEmpty && parts.host != nil { parts.path = "/" }
        return parts.string ?? url.absoluteString
    }
}
