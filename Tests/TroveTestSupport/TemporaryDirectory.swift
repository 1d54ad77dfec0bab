import Foundation

/// A fresh empty directory under the system's temporary folder; the caller removes it with
/// `removeTemporaryDirectory`. The one place tests make temporary directories: `withTemporaryDirectory` and
/// `TemporaryDirectory` remove theirs.
public func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "trove-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `body` with a fresh empty directory, removed when `body` returns or throws.
public func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = try temporaryDirectory()
    defer { removeTemporaryDirectory(url) }
    return try await body(url)
}

/// Removes a test's temporary directory and everything in it. A disk cache's write-behind store may still
/// be landing when a test ends, and a shard folder it makes while the removal runs makes the last `rmdir`
/// fail and leaves the directory behind; so the removal is tried again, a moment later, up to five times.
public func removeTemporaryDirectory(_ url: URL) {
    for attempt in 0..<5 {
        try? FileManager.default.removeItem(at: url)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        Thread.sleep(forTimeInterval: 0.01 * Double(1 << attempt))
    }
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
        removeTemporaryDirectory(url)
    }

    /// `url`'s path.
    public var path: String { url.path }
}
