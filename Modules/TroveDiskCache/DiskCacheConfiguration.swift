import TroveCore

/// Limits and behaviour of a `DiskCache`.
public struct DiskCacheConfiguration: Sendable {
    /// Most bytes the entry files may take on disk (headers included).
    public var byteLimit: Int
    /// Most entries kept; nil for no count limit.
    public var countLimit: Int?
    /// Entries created longer ago than this read as misses and are removed.
    public var maxAge: Duration
    /// Passed to the compressor (nil: its default).
    public var compressionLevel: Int?
    /// Once a limit is exceeded, entries are evicted until bytes and count are at this fraction of their limits.
    public var lowWaterFraction: Double
    /// Flush each entry file and its directory to stable storage before its write counts as done.
    public var fsync: Bool
    /// Whether a read recomputes the payload's CRC every time, or once per version of the file.
    public var payloadVerification: PayloadVerification
    /// How long an entry is kept after its `expires` date: a stale entry a pipeline can still revalidate, or
    /// deliver when the origin is down (stale-if-error). Plain reads miss it; `entry(forKey:includingStale:)`
    /// returns it. Zero (the default) removes an entry when it expires.
    public var staleRetention: Duration
    /// Most bytes of write-behind stores queued for the disk; a store that finds the queue full waits for
    /// room. One store larger than this is still taken when the queue is empty.
    public var writeQueueByteLimit: Int

    /// Defaults: 500 MiB, no count limit, 7 days, the compressor's level, trim to 80%, no fsync, verify when the
    /// file changes, no stale retention, 64 MiB of queued stores. Opening a `DiskCache` throws `invalidConfiguration` for bad values.
    public init(
        byteLimit: Int = 500 << 20, countLimit: Int? = nil, maxAge: Duration = .seconds(7 * 24 * 3600),
        compressionLevel: Int? = nil, lowWaterFraction: Double = 0.8, fsync: Bool = false,
        payloadVerification: PayloadVerification = .whenFileChanges, staleRetention: Duration = .zero,
        writeQueueByteLimit: Int = 64 << 20
    ) {
        self.byteLimit = byteLimit
        self.countLimit = countLimit
        self.maxAge = maxAge
        self.compressionLevel = compressionLevel
        self.lowWaterFraction = lowWaterFraction
        self.fsync = fsync
        self.payloadVerification = payloadVerification
        self.staleRetention = staleRetention
        self.writeQueueByteLimit = writeQueueByteLimit
    }

    /// Rejects limits that would make the cache useless or trimming endless.
    func validate() throws {
        if byteLimit <= 0 {
            throw TroveError.invalidConfiguration("disk cache byteLimit must be positive, got \(byteLimit)")
        }
        if let countLimit, countLimit <= 0 {
            throw TroveError.invalidConfiguration("disk cache countLimit must be positive or nil, got \(countLimit)")
        }
        if !(lowWaterFraction > 0 && lowWaterFraction <= 1) {
            throw TroveError.invalidConfiguration(
                "disk cache lowWaterFraction must be in (0, 1], got \(lowWaterFraction)")
        }
        if staleRetention < .zero {
            throw TroveError.invalidConfiguration(
                "disk cache staleRetention must not be negative, got \(staleRetention)")
        }
        if writeQueueByteLimit <= 0 {
            throw TroveError.invalidConfiguration(
                "disk cache writeQueueByteLimit must be positive, got \(writeQueueByteLimit)")
        }
        if maxAge <= .zero {
            throw TroveError.invalidConfiguration("disk cache maxAge must be positive, got \(maxAge)")
        }
    }

    var maxAgeSeconds: Double { maxAge.timeInterval }
    var staleRetentionSeconds: Double { staleRetention.timeInterval }

    var lowWaterBytes: Int { Int(Double(byteLimit) * lowWaterFraction) }
    var lowWaterCount: Int? { countLimit.map { Int(Double($0) * lowWaterFraction) } }
}
