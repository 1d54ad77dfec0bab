import Foundation

/// What the open-time scan found for one valid entry file.
struct ScannedEntry {
    let name: String
    let record: IndexRecord
}

extension DiskCache {
    /// Sweeps tmp/ and scans entries/ on the I/O queue, then merges the result into the index. A new
    /// manifest is written once the scan has re-filed what the old one's hasher named.
    func startOpening(writing manifest: CacheManifest?) {
        let generation = state.withLock { $0.generation }
        io.background { [self] in
            sweepTemporaryFiles()
            let found = scanEntries()
            manifest?.write(in: layout)
            finishScan(found, generation: generation)
        }
    }

    /// Reads the header of every file in entries/<2>/<2>/. Damaged files are deleted and counted; expired
    /// ones are deleted; ones written under another hasher are moved to this hasher's name for their key.
    func scanEntries() -> [ScannedEntry] {
        var found: [ScannedEntry] = []
        let now = Date()
        forEachEntryFile { name, path in
            guard let contents = try? EntryFile.read(at: path, payload: false, files: files) else { return }
            switch contents {
            case .missing:
                return
            case let .corrupt(_, identity):
                discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: false)
            case let .valid(header, _, file):
                if isExpired(created: header.created, expires: header.expires, now: now) {
                    discard(name, path: path, identity: file.identity, corrupt: false, countsAsMiss: false)
                    return
                }
                var name = name
                if !isReachable(header, at: path) {
                    guard let moved = refile(header.key, from: path, identity: file.identity) else { return }
                    name = moved
                }
                found.append(
                    ScannedEntry(
                        name: name,
                        record: IndexRecord(
                            key: header.key, bytes: file.size, compressed: header.compressorID != 0,
                            created: header.created, expires: header.expires)))
            }
        }
        return found
    }

    /// Calls `body(name, path)` for every file in entries/<2>/<2>/.
    func forEachEntryFile(_ body: (_ name: String, _ path: String) -> Void) {
        forEachEntryFile(under: layout.entries, body)
    }

    /// Calls `body(name, path)` for every file in `<entries>/<2>/<2>/`.
    func forEachEntryFile(under entries: String, _ body: (_ name: String, _ path: String) -> Void) {
        let manager = FileManager.default
        for outer in (try? manager.contentsOfDirectory(atPath: entries)) ?? [] {
            let outerPath = entries + "/" + outer
            for inner in (try? manager.contentsOfDirectory(atPath: outerPath)) ?? [] {
                let innerPath = outerPath + "/" + inner
                for name in (try? manager.contentsOfDirectory(atPath: innerPath)) ?? [] {
                    body(name, innerPath + "/" + name)
                }
            }
        }
    }

    /// Whether a lookup of the header's key would find this file (false for files written under another hasher).
    func isReachable(_ header: EntryHeader, at path: String) -> Bool {
        location(forKey: header.key).path == path
    }

    /// Moves an entry written under another hasher to where this hasher looks for its key, and returns its
    /// new name; nil when it was dropped instead: an entry already at the new place (written under this
    /// hasher, so it wins) or a file that changed meanwhile. Entries carry their full keys, so nothing is
    /// fetched again after a change of hasher.
    func refile(_ key: String, from path: String, identity: FileIdentity) -> String? {
        let (name, target) = location(forKey: key).parts
        return state.withLock { state -> String? in
            guard files.identity(of: path) == identity else { return nil }
            let shards = layout.shardDirectories(for: name)
            do {
                guard !files.exists(target) else { throw CocoaError(.fileWriteFileExists) }
                try files.makeDirectory(shards.outer)
                try files.makeDirectory(shards.inner)
                try files.move(path, to: target)
            } catch {
                files.removeFile(path)
                return nil
            }
            // Not noted as changed: the move is the scan's own doing, and its record must be merged.
            return name
        }
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
            state.refiling = false
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
