/// Maps a cache key to a file-system-safe name (lowercase hex).
public protocol KeyHasher: Sendable {
    /// The registry name, e.g. "sha256".
    var name: String { get }
    func hash(_ key: String) -> String
}
