/// The name of a registered plugin of one kind: typed, so a configuration cannot give a compressor's name
/// where a hasher's belongs, yet written as a constant for a built-in (`.sha256`, `.lru`, `.zlib`) or as a
/// string literal for a plugin's (`"djb2"`). It reads and writes as a plain string in JSON.
public struct PluginName<Plugin>: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The name the plugin is registered under.
    public let rawValue: String

    /// The name `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The name `rawValue`, unlabelled.
    package init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The name as written in code: `"djb2"`.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// The name itself.
    public var description: String { rawValue }
}

/// The name of a registered `KeyHasher`.
public typealias HasherName = PluginName<any KeyHasher>
/// The name of a registered eviction policy.
public typealias EvictionPolicyName = PluginName<any EvictionPolicyFactory>
/// The name of a registered disk entry `Compressor`.
public typealias CompressorName = PluginName<any Compressor>

extension PluginName where Plugin == any KeyHasher {
    /// SHA-256, the default.
    public static let sha256: Self = "sha256"
    /// MD5, shorter names where collisions are no concern (a full key in each entry catches one anyway).
    public static let md5: Self = "md5"
}

extension PluginName where Plugin == any EvictionPolicyFactory {
    /// Least recently used, the default.
    public static let lru: Self = "lru"
    /// First in, first out.
    public static let fifo: Self = "fifo"
    /// Least frequently used.
    public static let lfu: Self = "lfu"
    /// SIEVE: FIFO with a visited bit and a moving hand.
    public static let sieve: Self = "sieve"
    /// S3-FIFO: a small probation queue, a main queue and a ghost queue.
    public static let s3fifo: Self = "s3fifo"
    /// W-TinyLFU: a window LRU in front of a frequency-filtered main cache.
    public static let wtinylfu: Self = "wtinylfu"
}

extension PluginName where Plugin == any Compressor {
    /// No compression, the default.
    public static let none: Self = "none"
    /// zlib (deflate), kept only when it makes an entry smaller.
    public static let zlib: Self = "zlib"
}
