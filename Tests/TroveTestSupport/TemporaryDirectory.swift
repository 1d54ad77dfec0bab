import Foundation

/// A fresh empty directory under the system's temporary folder; the caller removes it. The one place
/// tests make temporary directories: `withTemporaryDirectory` and `TemporaryDirectory` remove theirs.
public func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "trove-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `body` with a fresh empty directory, removed when `body` returns or throws.
public func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// Regular files under a directory, recursively (what a disk cache wrote there).
public func filesUnder(_ url: URL) -> [URL] {
    guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey]) else {
        return []
    }
    return walker.compactMap { $0 as? URL }.filter {
        (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }
}

/// A fresh directory, removed when the value goes away: for tests that keep one across several steps
/// rather than inside one closure.
public final class TemporaryDirectory {
    /// The directory.
    public let url: URL

    /// Creates an empty directory under the system's temporary folder.
    public init() throws {
        url = try temporaryDirectory()
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// `url`'s path.
    public var path: String { url.path }
}
