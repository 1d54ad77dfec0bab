import Foundation
import Logging
import Synchronization
import TroveCore
import TroveEviction
import TroveSupport

// Removing one entry or all of them, queued stores included.
extension DiskCache {
    /// Removes the entry for `key`, and cancels a queued store of it so it does not come back; false if
    /// there was neither (another key's file at the same hash is kept).
    public func removeEntry(forKey key: String) async throws -> Bool {
        await waitForCommit(ofKey: key)
        let cancelled = await writes.cancel(key)
        let removed = try await io.run { try self.removeNow(forKey: key) }
        return cancelled || removed
    }

    func removeNow(forKey key: String) throws -> Bool {
        let (name, path) = location(forKey: key).parts
        switch try EntryFile.read(at: path, payload: false, files: files) {
        case .missing:
            state.withLock { state in
                if state.index.remove(name) != nil { state.noteChanged(name) }
            }
            return false
        case let .corrupt(_, identity):
            discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: false)
            return false
        case let .valid(header, _, file):
            guard header.key == key else { return false }
            return try state.withLock { state throws -> Bool in
                guard files.identity(of: path) == file.identity, try files.remove(path) else { return false }
                state.index.remove(name)
                state.noteChanged(name)
                return true
            }
        }
    }

    /// Removes every entry and cancels every queued store; returns how many entries went (files, and
    /// queued stores of keys with no file). The entries directory is swapped for an empty one in one
    /// rename, so readers never see a half-cleared cache; the old one is deleted afterwards.
    @discardableResult
    public func removeAll() async throws -> Int {
        await commits.waitForAll()
        let cancelled = await writes.cancelAll()
        return try await io.run {
            let unwritten = cancelled.filter { !self.files.exists(self.fileURL(forKey: $0).path) }.count
            return try self.removeAllNow() + unwritten
        }
    }

    private func removeAllNow() throws -> Int {
        let trash = layout.temporaryPath(for: "removed")
        let moved = try state.withLock { state throws -> Bool in
            let moved = try files.moveIfPresent(layout.entries, to: trash)
            try files.makeDirectory(layout.entries)
            state.index.removeAll()
            state.damageLeftInPlace.removeAll()
            state.generation += 1
            return moved
        }
        guard moved else { return 0 }
        var removed = 0
        forEachEntryFile(under: trash) { _, _ in removed += 1 }
        do {
            try FileManager.default.removeItem(atPath: trash)
        } catch {
            throw TroveError.ioFailed(
                path: trash, reason: "cannot delete removed entries: \(error.localizedDescription)")
        }
        return removed
    }
}
