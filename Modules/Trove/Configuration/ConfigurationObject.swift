import Foundation
import TroveCore
import TroveFetcher

/// A key of the configuration's JSON form.
struct ConfigurationKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// One JSON object of a configuration file, read field by field onto defaults: a missing key leaves the
/// default, an unknown key is an error naming it and listing the known ones, and a value of the wrong type
/// is an error naming its path (`scheduler.maxConcurrent`).
struct ConfigurationObject {
    private let container: KeyedDecodingContainer<ConfigurationKey>
    private let path: String

    /// The top-level object; `moved` maps keys that used to be known to where they are now.
    init(_ decoder: any Decoder, known: [String], moved: [String: String] = [:]) throws {
        try self.init(decoder.container(keyedBy: ConfigurationKey.self), path: "", known: known, moved: moved)
    }

    private init(
        _ container: KeyedDecodingContainer<ConfigurationKey>, path: String, known: [String],
        moved: [String: String] = [:]
    ) throws {
        self.container = container
        self.path = path
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            if let destination = moved[unknown] {
                throw TroveError.invalidConfiguration("'\(path + unknown)' is now '\(destination)'")
            }
            throw TroveError.invalidConfiguration(
                "unknown field '\(path + unknown)'; known: \(known.joined(separator: ", "))")
        }
    }

    /// The value at `key`, or nil when the key is absent (JSON null decodes as a nil `T` when `T` is optional).
    func value<T: Decodable>(_ type: T.Type, _ key: String) throws -> T? {
        let codingKey = ConfigurationKey(key)
        guard container.contains(codingKey) else { return nil }
        return try container.decode(T.self, forKey: codingKey)
    }

    /// Sets `target` from `key` when present.
    func set<T: Decodable>(_ target: inout T, _ key: String) throws {
        if let value = try value(T.self, key) { target = value }
    }

    /// Sets `target` from `key` when present, refusing a value outside `range` with an error that names both.
    func set<T: Decodable & Comparable>(_ target: inout T, _ key: String, in range: ClosedRange<T>) throws {
        guard let value = try value(T.self, key) else { return }
        guard range.contains(value) else {
            throw invalid(key, "must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
        target = value
    }

    /// As `set(_:_:in:)` with only a lower bound.
    func set<T: Decodable & Comparable>(_ target: inout T, _ key: String, atLeast minimum: T) throws {
        guard let value = try value(T.self, key) else { return }
        guard value >= minimum else { throw invalid(key, "must be \(minimum) or more, not \(value)") }
        target = value
    }

    /// Sets a duration from a number of seconds at `key`, when present.
    func setSeconds(_ target: inout Duration, _ key: String) throws {
        if let seconds = try value(Double.self, key) { target = try duration(seconds, key) }
    }

    /// As `setSeconds`, where null clears the duration.
    func setSeconds(_ target: inout Duration?, _ key: String) throws {
        guard let seconds = try value(Double?.self, key) else { return }
        target = try seconds.map { try duration($0, key) }
    }

    /// The nested object at `key`, checked against its known keys; nil when absent.
    func object(_ key: String, known: [String]) throws -> ConfigurationObject? {
        let codingKey = ConfigurationKey(key)
        guard container.contains(codingKey) else { return nil }
        return try ConfigurationObject(
            container.nestedContainer(keyedBy: ConfigurationKey.self, forKey: codingKey), path: path + key + ".",
            known: known)
    }

    /// The error for a value at `key` that cannot be used.
    func invalid(_ key: String, _ problem: String) -> TroveError {
        TroveError.invalidConfiguration("'\(path + key)' \(problem)")
    }

    private func duration(_ seconds: Double, _ key: String) throws -> Duration {
        guard seconds >= 0, seconds.isFinite, seconds < 1e12 else {
            throw invalid(key, "must be a number of seconds, 0 or more, not \(seconds)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// A coding path as written in messages: `scheduler.maxConcurrent`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map(\.stringValue).joined(separator: ".")
    }

    /// What a type is called in messages.
    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int?.Type, is Double.Type, is Double?.Type: "a number"
        case is Bool.Type: "true or false"
        case is String.Type, is String?.Type: "a string"
        case is Set<String>.Type, is [String].Type, is [Any].Type: "a list of strings"
        default: "a \(type)"
        }
    }

    /// The scheduler settings as written.
    struct Scheduler: Encodable {
        let maxConcurrent: Int
        let maxPerHost: Int
        let order: QueueOrder
    }

    /// The cache-key rule as written, its names sorted so the file is the same each time.
    struct KeyRule: Encodable {
        let droppedQueryParameters: [String]
        let sortsQueryParameters: Bool
    }

    /// The shared tier's options as written, durations in seconds.
    struct TierOptions: Encodable {
        let maxValueBytes: Int
        let connectTimeout: Double
        let commandTimeout: Double
        let connections: Int
        let keyPrefix: String
    }

    /// `sharedTierPolicy` as a file writes it: durations in seconds (a nil lease time left out).
    struct TierPolicy: Encodable {
        let leaseTTL: Double?
        let firstPollInterval: Double
        let maxPollInterval: Double
        let failureThreshold: Int
        let cooldown: Double
        let warningInterval: Double
        let sharesResults: Bool
        let resultLeaseTTL: Double
    }
}
