// How several processes (and several `DiskCache` values in one process) share one cache directory
// without locks, and how a process killed at any instant leaves a cache that is still correct.
//
// 1. Writers never change a file another process can open. An entry is written whole into
//    `tmp/<name>.<pid>.<random>` (a name no other writer can pick) and then `rename(2)`d over
//    `entries/<2>/<2>/<name>`. rename is atomic within one file system: a reader that opens the path
//    gets the old inode or the new one, and an open descriptor keeps its inode whole even if the path is
//    replaced or unlinked a moment later. So no reader can see a torn entry, whatever the timing.
// 2. Readers trust nothing they did not check: every read verifies the header, the full key and the
//    length, and the CRC of the payload unless this process already checked this very version of the
//    file (same device, inode, size, modification and change time; see `PayloadVerification`). Another
//    process's rename brings a new inode and an in-place write new times, so their bytes are checked
//    afresh. A file damaged by a disk fault, another program, or a power loss reads as a miss.
// 3. Deletes are conditional. A reader that finds a damaged or expired file deletes it only if the path
//    still names the inode it read (compared by device and inode number). The window between that check
//    and the unlink can at worst delete a good entry another process just renamed into place: an entry
//    may be lost, never replaced by wrong bytes.
// 4. Each process's index is its own view, a hint and never the truth. A lookup always opens the file,
//    so writes by others are seen at once (and adopted into the index when read); removals by others are
//    noticed when a lookup misses. Each process trims by its own view: evicting a name unlinks whatever
//    file is at that path, perhaps a newer version another process wrote. That only loses an entry, and
//    the directory may briefly hold more than one process's limit until the others trim.
// 5. Temp files are swept at open. A temp file whose owner process (the pid in its name) is gone is a
//    leftover of a crash and is deleted at once; one whose owner still runs, or is this process (another
//    DiskCache here may be writing it), is deleted only once untouched for `staleTemporaryAge`, which
//    covers a pid reused by an unrelated process and owners in another pid namespace.
// 6. `removeAll` renames `entries/` aside into tmp/ in one step and deletes it afterwards; a crash in
//    between leaves a `tmp/removed.<pid>.<random>` directory that the sweep removes like any temp file.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension CacheLayout {
    /// A fresh path in tmp/ no other writer can choose: `<name>.<pid>.<random>`.
    func temporaryPath(for name: String) -> String {
        temporary + "/" + name + "." + String(getpid()) + "." + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// The pid in a temp file's name, nil for a name not made by `temporaryPath`.
    static func ownerProcess(ofTemporary fileName: String) -> pid_t? {
        let parts = fileName.split(separator: ".")
        guard parts.count >= 3, let pid = pid_t(parts[parts.count - 2]), pid > 0 else { return nil }
        return pid
    }
}

extension DiskCache {
    /// A temp file untouched for this long is a leftover even if its pid seems alive.
    static let staleTemporaryAge: TimeInterval = 60

    /// Deletes the leftovers in tmp/ (rule 5 above).
    func sweepTemporaryFiles() {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: layout.temporary) else { return }
        let cutoff = Date().addingTimeInterval(-Self.staleTemporaryAge)
        let me = getpid()
        for name in names {
            let path = layout.temporary + "/" + name
            let ownerGone = CacheLayout.ownerProcess(ofTemporary: name).map { $0 != me && !Self.isRunning($0) } ?? false
            if !ownerGone {
                guard let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                    modified < cutoff
                else { continue }
            }
            try? manager.removeItem(atPath: path)
        }
    }

    /// Whether a process with this pid exists (EPERM: it does, but belongs to another user).
    static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
