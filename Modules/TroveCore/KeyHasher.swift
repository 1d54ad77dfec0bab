/// Maps a cache key to a file-system-safe name (lowercase hex).
public protocol KeyHasher: Sendable {
    /// The registry name, e.g. "sha256".
    var name: String { get }
    /// A lowercase hex digest of `key`; the same key gives the same name in every run and on every machine.
    func hash(_ key: String) -> String
}
