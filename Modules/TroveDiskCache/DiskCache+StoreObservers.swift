import Synchronization

extension DiskCache {
    /// Calls `observer` with the key and file size of every entry this cache puts in place from now on
    /// (stores, streamed commits, rewrites after a 304), on the thread that wrote it: it must be quick.
    package func observeStores(_ observer: @escaping @Sendable (_ key: String, _ bytes: Int) -> Void) {
        storeObservers.withLock { $0.append(observer) }
    }

    /// Tells the observers of an entry now in place.
    func notifyStored(_ record: IndexRecord) {
        let observers = storeObservers.withLock { $0 }
        for observer in observers { observer(record.key, record.bytes) }
    }
}
