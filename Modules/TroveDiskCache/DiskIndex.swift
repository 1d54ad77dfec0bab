import Foundation
import TroveCore

/// What the index remembers of one entry file, so limits, stats and listings need no disk access.
struct IndexRecord: Sendable {
    var key: String
    /// The whole file's size on disk.
    var bytes: Int
    var compressed: Bool
    var created: Date
    var expires: Date?
    /// The version of the file whose payload checksum was last found good by a read in this process
    /// (see `PayloadVerification.whenFileChanges`); nil until then.
    var verified: FileVersion? = nil
}

/// The in-memory picture of entries/: file name (hash) -> record, with recency kept by the eviction
/// policy (never by file timestamps). Not thread-safe: lives inside the cache's `Mutex`.
struct DiskIndex {
    private(set) var records: [String: IndexRecord] = [:]
    private(set) var totalBytes = 0
    private(set) var compressedCount = 0
    private let policy: any EvictionPolicy<String>

    init(policy: any EvictionPolicy<String>) {
        self.policy = policy
    }

    var count: Int { records.count }

    func record(_ name: String) -> IndexRecord? { records[name] }

    /// Adds or replaces an entry; it becomes the most recently used.
    mutating func upsert(_ name: String, _ record: IndexRecord) {
        remove(name)
        records[name] = record
        totalBytes += record.bytes
        if record.compressed { compressedCount += 1 }
        policy.insert(name, cost: record.bytes)
    }

    /// Records a hit.
    func touch(_ name: String) {
        policy.access(name)
    }

    /// Remembers that the payload of this version of the entry's file checked out.
    mutating func markVerified(_ name: String, as version: FileVersion) {
        records[name]?.verified = version
    }

    @discardableResult
    mutating func remove(_ name: String) -> IndexRecord? {
        guard let old = records.removeValue(forKey: name) else { return nil }
        totalBytes -= old.bytes
        if old.compressed { compressedCount -= 1 }
        policy.remove(name)
        return old
    }

    /// The policy's victim, already removed from the index; nil when empty.
    mutating func evict() -> String? {
        while let name = policy.evict() {
            if remove(name) != nil { return name }
        }
        return nil
    }

    mutating func removeAll() {
        records.removeAll()
        totalBytes = 0
        compressedCount = 0
        policy.removeAll()
    }
}
