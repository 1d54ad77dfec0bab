import Foundation
import Trove

/// One layer of `trove serve`'s configuration: every field optional, so a layer says only what it sets.
/// The `--config` file is this as JSON (the field names below); the environment is read by
/// `init(environment:)`; flags fill one in too. `ServerConfiguration(layers:)` applies them in order.
public struct ServerSettings: Sendable, Codable {
    /// The address to listen on (`--host`).
    public var host: String?
    /// The port to listen on; 0 picks a free one (`--port`).
    public var port: Int?
    /// The cache directory (`--cache-dir`).
    public var cacheDir: String?
    /// Signing keys, hex (`--key`, `TROVE_KEY`).
    public var keys: [String]?
    /// Signing salts, hex, one for each key (`--salt`, `TROVE_SALT`).
    public var salts: [String]?
    /// Named option strings that URLs may refer to (`preset:name`); `default` applies to every URL.
    public var presets: [String: String]?
    /// Only presets may be named in URLs.
    public var presetsOnly: Bool?
    /// Source URL prefixes allowed, matched on a boundary (`--allowed-source`).
    public var allowedSources: [String]?
    /// Lets sources resolve to loopback addresses (`--allow-loopback-sources`).
    public var allowLoopbackSources: Bool?
    /// Lets sources resolve to private addresses (`--allow-private-sources`).
    public var allowPrivateSources: Bool?
    /// Transforms running at once (`--max-concurrency`).
    public var maxConcurrency: Int?
    /// Requests waiting for a transform before the server answers 429 (`--max-queue`).
    public var maxQueue: Int?
    /// Whether results are cached (`--no-result-cache` turns it off).
    public var resultCache: Bool?
    /// Bytes of encoded results kept in memory.
    public var resultMemoryBytes: Int?
    /// The largest source fetched, in bytes.
    public var maxSourceBytes: Int?
    /// The most pixels a source may have, read from its header before decoding.
    public var maxSourcePixels: Int?
    /// The most animation frames a source may have.
    public var maxAnimationFrames: Int?
    /// The whole request's time limit, in seconds.
    public var requestDeadlineSeconds: Double?
    /// `Cache-Control: max-age` of results, in seconds.
    public var resultMaxAge: Int?
    /// `Cache-Control: max-age` of errors, in seconds.
    public var errorMaxAge: Int?
    /// The fleet's shared tier (`redis://...`, `--shared-cache`).
    public var sharedCache: String?
    /// The largest width or height a result may have.
    public var maxResultDimension: Int?
    /// Requests handled at once, waiting ones included; more get 429.
    public var maxRequests: Int?
    /// How far a decoder may reduce for a downscaling transform (1 reduces down to the output size).
    public var reducingGap: Double?
    /// The pipeline's own settings (`PipelineConfiguration`'s JSON form: hasher, compressor, disk limits,
    /// retries, timeouts, ...). The keys the server sets itself (`Self.serverOwnedPipelineKeys`) are refused
    /// here, naming the server setting to use instead.
    public var pipeline: PipelineConfiguration?

    /// The pipeline keys the server sets from its own settings (or fixes), with what to write instead; a
    /// dotted key names a field of a nested object.
    static let serverOwnedPipelineKeys: [String: String] = [
        "cacheDirectory": "cacheDir", "maxBytes": "maxSourceBytes",
        "decodingLimits": "maxSourcePixels and maxAnimationFrames", "requestDeadline": "requestDeadlineSeconds",
        "memory.countLimit": "resultMemoryBytes (the server keeps encoded results, not pixels)",
        "scheduler": "maxConcurrency and maxQueue", "shrinkOnLoadReducingGap": "reducingGap",
        "sharedCache": "sharedCache"
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, cacheDir, keys, salts, presets, presetsOnly, allowedSources, allowLoopbackSources
        case allowPrivateSources, maxConcurrency, maxQueue, resultCache, resultMemoryBytes, maxSourceBytes
        case maxSourcePixels, maxAnimationFrames, requestDeadlineSeconds, resultMaxAge, errorMaxAge, sharedCache
        case maxResultDimension, maxRequests, reducingGap, pipeline

        static var allNames: [String] { allCases.map(\.rawValue) }
    }

    public init() {}

    /// Reads a `--config` file; an unknown field or a wrong type is an error naming it.
    public init(contentsOf file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ServerConfigurationError("cannot read the config file \(file.path): \(error.localizedDescription)")
        }
        do {
            try Self.rejectUnknownFields(in: data)
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch let error as ServerConfigurationError {
            throw error
        } catch let TroveError.invalidConfiguration(reason) {
            throw ServerConfigurationError("config file \(file.path): pipeline: \(reason)")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ServerConfigurationError("config file \(file.path): '\(field)' has the wrong type")
        } catch {
            throw ServerConfigurationError("config file \(file.path) is not valid JSON: \(error.localizedDescription)")
        }
    }

    /// A misspelt field would otherwise be ignored in silence.
    private static func rejectUnknownFields(in data: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ServerConfigurationError("the config file must hold one JSON object")
        }
        let known = Set(CodingKeys.allNames)
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw ServerConfigurationError(
                "unknown field '\(unknown)' in the config file; known: \(CodingKeys.allNames.joined(separator: ", "))")
        }
        // The server would overwrite these; accepting them would ignore them in silence.
        if let pipeline = object["pipeline"] as? [String: Any],
            let owned = serverOwnedPipelineKeys.keys.sorted().first(where: { isSet($0, in: pipeline) })
        {
            throw ServerConfigurationError(
                "'pipeline.\(owned)' is set by the server; use the top-level \(serverOwnedPipelineKeys[owned]!) instead"
            )
        }
    }

    /// Whether the dotted `path` (`memory.countLimit`) is present in `object`.
    private static func isSet(_ path: String, in object: [String: Any]) -> Bool {
        let parts = path.split(separator: ".").map(String.init)
        var current: [String: Any]? = object
        for part in parts.dropLast() { current = current?[part] as? [String: Any] }
        return current?[parts.last ?? ""] != nil
    }

    /// The `TROVE_*` variables (see `EnvironmentName`); lists are comma-separated, switches `1`/`true`/`yes`
    /// or `0`/`false`/`no`.
    public init(environment: [String: String]) throws {
        func value(_ name: EnvironmentName) -> String? {
            guard let text = environment[name.rawValue]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                return nil
            }
            return text
        }
        func list(_ name: EnvironmentName) -> [String]? {
            value(name).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        func integer(_ name: EnvironmentName) throws -> Int? {
            guard let text = value(name) else { return nil }
            guard let number = Int(text) else {
                throw ServerConfigurationError("\(name.rawValue)=\(text) is not a whole number")
            }
            return number
        }
        func switchValue(_ name: EnvironmentName) throws -> Bool? {
            guard let text = value(name)?.lowercased() else { return nil }
            switch text {
            case "1", "true", "yes", "on": return true
            case "0", "false", "no", "off": return false
            default: throw ServerConfigurationError("\(name.rawValue)=\(text) is not a switch; use true or false")
            }
        }
        host = value(.host)
        port = try integer(.port)
        cacheDir = value(.cacheDir)
        keys = list(.key)
        salts = list(.salt)
        allowedSources = list(.allowedSources)
        allowLoopbackSources = try switchValue(.allowLoopbackSources)
        allowPrivateSources = try switchValue(.allowPrivateSources)
        maxConcurrency = try integer(.maxConcurrency)
        maxQueue = try integer(.maxQueue)
        resultCache = try switchValue(.noResultCache).map { !$0 }
        maxSourceBytes = try integer(.maxSourceBytes)
        maxSourcePixels = try integer(.maxSourcePixels)
        maxAnimationFrames = try integer(.maxAnimationFrames)
        if let text = value(.requestDeadline) {
            guard let seconds = Double(text) else {
                throw ServerConfigurationError(
                    "\(EnvironmentName.requestDeadline.rawValue)=\(text) is not a number of seconds")
            }
            requestDeadlineSeconds = seconds
        }
        sharedCache = value(.sharedCache)
        maxResultDimension = try integer(.maxResultDimension)
        maxRequests = try integer(.maxRequests)
        if let text = value(.reducingGap) {
            guard let gap = Double(text) else {
                throw ServerConfigurationError("\(EnvironmentName.reducingGap.rawValue)=\(text) is not a number")
            }
            reducingGap = gap
        }
    }

    /// The environment variables `trove serve` reads.
    public enum EnvironmentName: String, CaseIterable, Sendable {
        case host = "TROVE_HOST", port = "TROVE_PORT", cacheDir = "TROVE_CACHE_DIR"
        case key = "TROVE_KEY", salt = "TROVE_SALT", allowedSources = "TROVE_ALLOWED_SOURCES"
        case allowLoopbackSources = "TROVE_ALLOW_LOOPBACK_SOURCES", allowPrivateSources = "TROVE_ALLOW_PRIVATE_SOURCES"
        case maxConcurrency = "TROVE_MAX_CONCURRENCY", maxQueue = "TROVE_MAX_QUEUE"
        case noResultCache = "TROVE_NO_RESULT_CACHE", maxSourceBytes = "TROVE_MAX_SOURCE_BYTES"
        case maxSourcePixels = "TROVE_MAX_SOURCE_PIXELS", maxAnimationFrames = "TROVE_MAX_ANIMATION_FRAMES"
        case requestDeadline = "TROVE_REQUEST_DEADLINE", sharedCache = "TROVE_SHARED_CACHE"
        case maxResultDimension = "TROVE_MAX_RESULT_DIMENSION", maxRequests = "TROVE_MAX_REQUESTS"
        case reducingGap = "TROVE_REDUCING_GAP"
    }
}
