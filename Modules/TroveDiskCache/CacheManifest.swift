import Foundation

/// `<root>/manifest.json`: what a cache directory was last opened with — the entry format version and the
/// key hasher. Entries carry their full keys, so a directory opened with another hasher re-files them under
/// their new names instead of losing them; the manifest tells a new opener that such a move is due, so its
/// lookups wait for it rather than missing. The entry files stay the truth: a lost or damaged manifest only
/// costs that wait.
struct CacheManifest: Codable, Equatable {
    var formatVersion: Int
    var hasher: String

    static func path(in layout: CacheLayout) -> String { layout.root + "/manifest.json" }

    /// The manifest on disk, or nil when there is none or it cannot be read.
    static func read(in layout: CacheLayout) -> CacheManifest? {
        guard let data = FileManager.default.contents(atPath: path(in: layout)) else { return nil }
        return try? JSONDecoder().decode(CacheManifest.self, from: data)
    }

    /// Writes it atomically (temp file and rename), so a reader sees the old manifest or the new one.
    func write(in layout: CacheLayout) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return }
        try? data.write(to: URL(fileURLWithPath: Self.path(in: layout)), options: .atomic)
    }
}
