import Foundation

/// What the open-time scan found for one valid entry file.
struct ScannedEntry {
    let name: String
    let record: IndexRecord
}

extension DiskCache {
    /// Temp files older than this are leftovers of a crashed or killed writer.
    static let staleTemporaryAge: TimeInterval = 60

    /// Sweeps tmp/ and scans entries/ on the I/O queue, then merges the result into the index.
    func startOpening() {
        let generation = state.withLock { $0.generation }
        io.background { [self] in
            sweepTemporaryFiles(olderThan: Self.staleTemporaryAge)
            finishScan(scanEntries(), generation: generation)
        }
    }

    /// Deletes files (and directories left by an interrupted removeAll) in tmp/ not modified for `age`
    /// seconds; younger ones may belong to a writer in another process.
    func sweepTemporaryFiles(olderThan age: TimeInterval) {
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: layout.temporary) else { return }
        let cutoff = Date().addingTimeInterval(-age)
        for name in names {
            let path = layout.temporary + "/" + name
            guard let modified = (try? files.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  modified < cutoff
            else { continue }
            try? files.removeItem(atPath: path)
        }
    }

    /// Reads the header of every file in entries/<2>/<2>/. Damaged files are deleted and counted; expired
    /// ones, and ones this hasher would never look up (written under another hasher), are deleted.
    func scanEntries() -> [ScannedEntry] {
        var found: [ScannedEntry] = []
        let now = Date()
        forEachEntryFile { name, path in
            guard let contents = try? EntryFile.read(at: path, payload: false) else { return }
            switch contents {
            case .missing:
                return
            case let .corrupt(_, identity):
                discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: false)
            case let .valid(header, _, identity, fileSize):
                if !isReachable(header, at: path) || isExpired(created: header.created, expires: header.expires, now: now) {
                    discard(name, path: path, identity: identity, corrupt: false, countsAsMiss: false)
                    return
                }
                found.append(ScannedEntry(name: name, record: IndexRecord(
                    key: header.key, bytes: fileSize, compressed: header.compressorID != 0,
                    created: header.created, expires: header.expires)))
            }
        }
        return found
    }

    /// Calls `body(name, path)` for every file in entries/<2>/<2>/.
    func forEachEntryFile(_ body: (_ name: String, _ path: String) -> Void) {
        let files = FileManager.default
        for outer in (try? files.contentsOfDirectory(atPath: layout.entries)) ?? [] {
            let outerPath = layout.entries + "/" + outer
            for inner in (try? files.contentsOfDirectory(atPath: outerPath)) ?? [] {
                let innerPath = outerPath + "/" + inner
                for name in (try? files.contentsOfDirectory(atPath: innerPath)) ?? [] {
                    body(name, innerPath + "/" + name)
                }
            }
        }
    }

    /// Whether a lookup of the header's key would find this file (false for files written under another hasher).
    func isReachable(_ header: EntryHeader, at path: String) -> Bool {
        layout.entryPath(for: fileName(forKey: header.key)) == path
    }

    /// Merges the scan into the index (oldest first, so creation order stands in for unknown recency),
    /// lets entries changed or used during the scan win, trims, and wakes `waitForIndex` callers.
    func finishScan(_ found: [ScannedEntry], generation: Int) {
        let ordered = found.sorted { $0.record.created < $1.record.created }
        state.withLock { state in
            if state.generation == generation {
                for entry in ordered
                where state.index.record(entry.name) == nil && !state.changedDuringScan.contains(entry.name) {
                    state.index.upsert(entry.name, entry.record)
                }
                for name in state.touchedDuringScan where state.index.record(name) != nil {
                    state.index.touch(name)
                }
            }
            state.scanning = false
            state.changedDuringScan = []
            state.touchedDuringScan = []
        }
        trimIfNeeded()
        let waiters = state.withLock { state in
            state.ready = true
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
