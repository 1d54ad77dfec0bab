/// Everything mutable in a `DiskCache`, kept behind its `Mutex`.
struct CacheState {
    var index: DiskIndex
    var hits = 0
    var misses = 0
    var corrupt = 0
    var evictions = 0
    /// Write-behind stores whose write failed (their callers had already returned).
    var failedWrites = 0
    /// Damaged files deleted (by the opening scan or lookups) and not yet reported by `verify()`.
    var corruptRemovedSinceVerify = 0
    /// Damaged files counted in `corrupt` that could not be deleted (a directory where an entry was), so
    /// that finding them again does not count them again.
    var damageLeftInPlace: Set<FileIdentity> = []

    /// True until the open-time scan has merged its findings; trimming waits for a complete index.
    var scanning = true
    /// True once the scan is merged and the first trim is done; `waitForIndex` callers wait for this.
    var ready = false
    var readyWaiters: [CheckedContinuation<Void, Never>] = []
    /// Bumped by `removeAll`, so a scan that started before it drops what it found.
    var generation = 0
    /// Entries written or removed while the scan ran: the scan's older view of them must not win.
    var changedDuringScan: Set<String> = []
    /// Entries used while the scan ran, in order, replayed after the merge so they stay the most recent.
    var touchedDuringScan: [String] = []
    var trimming = false
    /// True while the opening scan moves entries written under another hasher to this hasher's names;
    /// lookups wait for it, so a re-filed entry is never missed.
    var refiling = false

    init(index: DiskIndex) {
        self.index = index
    }

    mutating func noteChanged(_ name: String) {
        if scanning { changedDuringScan.insert(name) }
    }

    mutating func noteTouched(_ name: String) {
        if scanning { touchedDuringScan.append(name) }
    }
}
