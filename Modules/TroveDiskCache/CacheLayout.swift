import Foundation

/// Where a cache keeps its files: `<root>/entries/<2>/<2>/<name>` for entries, `<root>/tmp/` for writes
/// in progress (renamed into place when whole).
struct CacheLayout: Sendable {
    let root: String
    let entries: String
    let temporary: String

    init(directory: URL) {
        root = directory.standardizedFileURL.path
        entries = root + "/entries"
        temporary = root + "/tmp"
    }

    /// A hasher's output as a safe file name. Hashers promise lowercase hex; anything else is mapped to
    /// [0-9A-Za-z_] and capped at 128 bytes, which is safe because every read checks the full key anyway.
    static func fileName(forHash hash: String) -> String {
        var hash = hash
        let safe = hash.withUTF8 { !$0.isEmpty && $0.count <= 128 && $0.allSatisfy(isSafe) }
        if safe { return hash }  // the usual case: hex
        let mapped = hash.utf8.prefix(128).map { isSafe($0) ? $0 : UInt8(ascii: "_") }
        return mapped.isEmpty ? "_" : String(decoding: mapped, as: UTF8.self)
    }

    private static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default: false
        }
    }

    /// The two shard directories of an entry, `<entries>/<2>` and `<entries>/<2>/<2>`: its path without
    /// the name, and without the last shard too (`entryPath` alone spells the layout out).
    func shardDirectories(for name: String) -> (outer: String, inner: String) {
        let path = entryPath(for: name).utf8
        let inner = path.dropLast(name.utf8.count + 1)
        return (String(decoding: inner.dropLast(3), as: UTF8.self), String(decoding: inner, as: UTF8.self))
    }

    /// `<entries>/<2>/<2>/<name>`: the name's first two characters, then the next two ("0" where the name
    /// is shorter), then the name. Names are ASCII (see `fileName(forHash:)`), so this copies bytes, into
    /// one allocation: every lookup makes one.
    func entryPath(for name: String) -> String {
        var entries = entries
        var name = name
        return entries.withUTF8 { root in
            name.withUTF8 { file in
                String(unsafeUninitializedCapacity: root.count + 7 + file.count) { out in
                    var index = 0
                    func put(_ byte: UInt8) { out[index] = byte; index += 1 }
                    for byte in root { put(byte) }
                    put(UInt8(ascii: "/"))
                    for shard in 0..<4 {
                        put(shard < file.count ? file[shard] : UInt8(ascii: "0"))
                        if shard % 2 == 1 { put(UInt8(ascii: "/")) }
                    }
                    for byte in file { put(byte) }
                    return index
                }
            }
        }
    }
}
