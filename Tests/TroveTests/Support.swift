import Foundation

/// Paths and temporary folders the pipeline tests share.
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func image(_ name: String) -> URL {
        folder.appendingPathComponent("images").appendingPathComponent(name)
    }
}

/// A fresh directory removed when the test's closure ends.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("trove-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// Regular files under a directory, recursively (what the disk cache wrote).
func filesUnder(_ url: URL) -> [URL] {
    guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey]) else {
        return []
    }
    return walker.compactMap { $0 as? URL }.filter {
        (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }
}
