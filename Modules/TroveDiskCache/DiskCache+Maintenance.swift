import Foundation

/// What `DiskCache.verify()` found (the fields of `trove cache verify --json`).
package struct DiskCacheVerification: Sendable, Equatable, Codable {
    /// Entry files examined.
    package var checked: Int
    /// Files whose header, key, decompression or CRC failed.
    package var corrupt: Int
    /// Files deleted: the corrupt ones plus expired ones and ones no lookup could reach.
    package var removed: Int

    /// A report with the given counts (all zero by default).
    package init(checked: Int = 0, corrupt: Int = 0, removed: Int = 0) {
        self.checked = checked
        self.corrupt = corrupt
        self.removed = removed
    }
}

extension DiskCache {
    /// Reads every entry file in full and checks it as a lookup would, deleting what fails. Damaged files
    /// the opening scan or lookups already deleted since the last verify are counted in the report too
    /// (as checked, corrupt and removed), so damage is reported however it was found. Queued stores are
    /// written first.
    package func verify() async throws -> DiskCacheVerification {
        await flush()
        await waitForIndex()
        return await io.run {
            let foundEarlier = self.state.withLock { $0.corruptRemovedSinceVerify }
            var report = DiskCacheVerification(checked: foundEarlier, corrupt: foundEarlier, removed: foundEarlier)
            defer { self.state.withLock { $0.corruptRemovedSinceVerify = 0 } }
            let now = Date()
            self.forEachEntryFile { name, path in
                guard let contents = try? EntryFile.read(at: path, payload: true, files: self.files) else { return }
                switch contents {
                case .missing:
                    return
                case let .corrupt(_, identity):
                    report.checked += 1
                    report.corrupt += 1
                    if self.discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: false) {
                        report.removed += 1
                    }
                case let .valid(header, storedPayload, file):
                    report.checked += 1
                    let intact = storedPayload.flatMap { self.originalPayload(of: header, stored: $0) } != nil
                    if !intact { report.corrupt += 1 }
                    let stale =
                        !self.isReachable(header, at: path)
                        || self.isExpired(created: header.created, expires: header.expires, now: now)
                    if (!intact || stale)
                        && self.discard(
                            name, path: path, identity: file.identity, corrupt: !intact, countsAsMiss: false)
                    {
                        report.removed += 1
                    }
                }
            }
            return report
        }
    }

    /// Removes every entry whose full key satisfies `predicate`, expired ones included; returns how many.
    /// Queued stores are written first; the index is read to find them, so no file is opened for the search.
    @discardableResult
    public func removeEntries(whereKey predicate: (String) -> Bool) async throws -> Int {
        await flush()
        await waitForIndex()
        let keys = state.withLock { state in state.index.records.values.map(\.key).filter(predicate) }
        var removed = 0
        for key in keys where try await removeEntry(forKey: key) { removed += 1 }
        return removed
    }

    /// Removes every entry created before `date` (as `trove cache clear --older-than` does); returns how many.
    /// Queued stores are written first, so an old one cannot land after the sweep.
    @discardableResult
    public func removeEntries(createdBefore date: Date) async throws -> Int {
        await flush()
        await waitForIndex()
        return await io.run {
            var removed = 0
            self.forEachEntryFile { name, path in
                guard let contents = try? EntryFile.read(at: path, payload: false, files: self.files) else { return }
                switch contents {
                case .missing:
                    return
                case let .corrupt(_, identity):
                    if self.discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: false) {
                        removed += 1
                    }
                case let .valid(header, _, file):
                    if header.created < date
                        && self.discard(name, path: path, identity: file.identity, corrupt: false, countsAsMiss: false)
                    {
                        removed += 1
                    }
                }
            }
            return removed
        }
    }
}
