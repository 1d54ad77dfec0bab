import Foundation
import Trove

/// One layer of `trove serve`'s configuration: every field optional, so a layer says only what it sets.
/// The `--config` file is this as JSON (the field names below); the environment is read by
/// `init(environment:)`; flags fill one in too. `ServerConfiguration(layers:)` applies them in order.
public struct ServerSettings: Sendable, Codable {
    public var host: String?
    public var port: Int?
    public var cacheDir: String?
    public var keys: [String]?
    public var salts: [String]?
    public var presets: [String: String]?
    public var presetsOnly: Bool?
    public var allowedSources: [String]?
    public var allowLoopbackSources: Bool?
    public var allowPrivateSources: Bool?
    public var maxConcurrency: Int?
    public var maxQueue: Int?
    public var resultCache: Bool?
    public var resultMemoryBytes: Int?
    public var maxSourceBytes: Int?
    public var maxSourcePixels: Int?
    public var maxAnimationFrames: Int?
    public var requestDeadlineSeconds: Double?
    public var resultMaxAge: Int?
    public var errorMaxAge: Int?
    public var sharedCache: String?
    public var maxResultDimension: Int?
    public var maxRequests: Int?
    public var reducingGap: Double?
    /// The pipeline's own settings (`PipelineConfiguration`'s JSON form: hasher, compressor, disk limits,
    /// retries, timeouts, ...); the server's settings above win where both speak.
    public var pipeline: PipelineConfiguration?

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
