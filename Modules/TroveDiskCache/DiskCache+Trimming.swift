extension DiskCache {
    /// Whether `trimIfNeeded` would evict now: a cheap check for a caller that hands the trim elsewhere.
    var needsTrim: Bool {
        state.withLock { mayStartTrim($0) }
    }

    /// After a store: once bytes or count exceed a limit, evicts by the policy down to the low-water marks.
    /// One trim runs at a time (a running one re-checks the totals each step, so it covers later stores),
    /// and none before the index is complete. Each eviction takes the lock on its own, so reads go on.
    func trimIfNeeded() {
        let start = state.withLock { state -> Bool in
            guard mayStartTrim(state) else { return false }
            state.trimming = true
            return true
        }
        guard start else { return }
        let bytesTarget = configuration.lowWaterBytes
        let countTarget = configuration.lowWaterCount ?? Int.max
        while evictOne(bytesAbove: bytesTarget, countAbove: countTarget) {}
        state.withLock { $0.trimming = false }
    }

    /// Evicts entries until the files take at most `bytes` on disk (as `trove cache trim --to` does).
    /// Returns how many were evicted.
    @discardableResult
    public func trim(toBytes bytes: Int) async -> Int {
        await waitForIndex()
        return await io.run {
            var evicted = 0
            while self.evictOne(bytesAbove: max(0, bytes), countAbove: Int.max) { evicted += 1 }
            return evicted
        }
    }

    /// Over a limit, with the index complete and no trim running: when a trim starts.
    private func mayStartTrim(_ state: CacheState) -> Bool {
        !state.scanning && !state.trimming && isOverLimit(state.index)
    }

    private func isOverLimit(_ index: DiskIndex) -> Bool {
        index.totalBytes > configuration.byteLimit || index.count > (configuration.countLimit ?? Int.max)
    }

    /// Evicts one entry if the totals are above either target; false when nothing was evicted.
    private func evictOne(bytesAbove bytes: Int, countAbove count: Int) -> Bool {
        state.withLock { state in
            guard state.index.totalBytes > bytes || state.index.count > count,
                let name = state.index.evict()
            else { return false }
            files.removeFile(layout.entryPath(for: name))
            state.evictions += 1
            state.noteChanged(name)
            return true
        }
    }
}
