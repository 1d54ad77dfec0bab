import Foundation
import Trove

extension ServerConfiguration {
    /// The defaults, then a JSON file (`configFile`, or `--config FILE` among `arguments`), then
    /// `environment`, then `arguments` (`trove serve`'s flags), each over the one before. Of two variables
    /// for one setting, Trove's (`TROVE_*`) wins over imgproxy's (`IMGPROXY_*`). Throws
    /// `ServerConfigurationError` naming the value that cannot be used and how it was given.
    ///
    /// The file is one JSON object: the settings' keys (`maxQueue`, `presets`, ...) and `pipeline`, a
    /// `PipelineConfiguration` in its JSON form read over the server's defaults.
    public init(configFile: URL? = nil, environment: [String: String] = [:], arguments: [String] = []) throws {
        self.init()
        let flags = try GivenFlags(arguments)
        if let file = configFile ?? flags.configFile { try applyFile(file) }
        try applyEnvironment(environment)
        for (setting, values) in flags.values { try setting.write(&self, values, "--\(setting.flag ?? "")") }
    }

    /// The `IMGPROXY_*` variables in `environment` that `trove serve` does not read, sorted, and those that
    /// ask for what Trove cannot do (`IMGPROXY_STRIP_METADATA=false`: results keep no metadata but the
    /// copyright notice); the server names them at start so that nothing is ignored in silence.
    package static func ignoredVariables(in environment: [String: String]) -> [String] {
        let read = Set(ServerSetting.all.flatMap { $0.environment.map(\.name) })
        return environment.filter { name, value in
            name.hasPrefix("IMGPROXY_") && !read.contains(name) && !ImgproxyFixedBehaviour.honours(name, value)
        }.keys.sorted()
    }

    /// Pipeline keys the server sets itself, with what to write instead.
    static let serverOwnedPipelineKeys = [
        "memory.countLimit": "resultMemoryBytes (the server keeps encoded results, not pixels)",
        "scheduler": "maxConcurrency and maxQueue"
    ]

    /// Top-level keys of earlier versions that now live in the nested pipeline.
    static let movedKeys = [
        "cacheDir": "pipeline.cacheDirectory", "maxSourceBytes": "pipeline.maxBytes",
        "maxSourcePixels": "pipeline.decodingLimits.maxPixels",
        "maxAnimationFrames": "pipeline.decodingLimits.maxFrames", "requestDeadlineSeconds": "pipeline.requestDeadline",
        "sharedCache": "pipeline.sharedCache", "reducingGap": "pipeline.shrinkOnLoadReducingGap"
    ]

    private mutating func applyFile(_ file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ServerConfigurationError("cannot read the config file \(file.path): \(error.localizedDescription)")
        }
        let object: [String: ConfigValue]
        do {
            object = try JSONDecoder().decode([String: ConfigValue].self, from: data)
        } catch {
            throw ServerConfigurationError("the config file \(file.path) must hold one JSON object")
        }
        let known = ServerSetting.all.compactMap(\.key) + ["pipeline"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            if let moved = Self.movedKeys[unknown] {
                throw ServerConfigurationError("'\(unknown)' in the config file is now '\(moved)'")
            }
            throw ServerConfigurationError(
                "unknown field '\(unknown)' in the config file; known: \(known.joined(separator: ", "))")
        }
        if let nested = object["pipeline"] { try applyPipeline(nested, from: data, file: file) }
        for setting in ServerSetting.all {
            guard let key = setting.key, let value = object[key] else { continue }
            try setting.write(&self, value.texts, "'\(key)' in the config file")
        }
    }

    /// Reads the file's `pipeline` over this configuration's, refusing the keys the server sets itself.
    private mutating func applyPipeline(_ nested: ConfigValue, from data: Data, file: URL) throws {
        if let owned = Self.serverOwnedPipelineKeys.keys.sorted().first(where: { nested.has(path: $0) }) {
            throw ServerConfigurationError(
                "'pipeline.\(owned)' is set by the server; use the top-level \(Self.serverOwnedPipelineKeys[owned]!) instead"
            )
        }
        struct File: Decodable { let pipeline: PipelineConfiguration }
        let decoder = JSONDecoder()
        decoder.userInfo[PipelineConfiguration.decodingBase] = pipeline
        do {
            pipeline = try decoder.decode(File.self, from: data).pipeline
        } catch let TroveError.invalidConfiguration(reason) {
            throw ServerConfigurationError("config file \(file.path): pipeline: \(reason)")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ServerConfigurationError("config file \(file.path): '\(field)' has the wrong type")
        } catch {
            throw ServerConfigurationError("config file \(file.path): pipeline: \(error)")
        }
    }

    private mutating func applyEnvironment(_ environment: [String: String]) throws {
        // imgproxy's variables first, so Trove's own win where both are set.
        for imgproxys in [true, false] {
            for setting in ServerSetting.all {
                for variable in setting.environment where variable.isImgproxys == imgproxys {
                    guard let raw = environment[variable.name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty,
                        let text = try variable.convert(raw)
                    else { continue }
                    let values: [String]
                    switch setting.form {
                    case .list: values = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    case .off: values = [String(!(try ServerSetting.truth(text, variable.name)))]
                    case .on, .value: values = [text]
                    }
                    try setting.write(&self, values, variable.name)
                }
            }
        }
    }
}

/// `trove serve`'s flags, read against `ServerSetting.all`: each setting's values in the order the settings
/// are listed, a list's items in the order given.
private struct GivenFlags {
    var configFile: URL?
    var values: [(ServerSetting, [String])] = []

    init(_ arguments: [String]) throws {
        var given: [String: [String]] = [:]
        var index = arguments.startIndex
        func value(for flag: String, inline: String?) throws -> String {
            if let inline { return inline }
            guard index < arguments.endIndex else { throw ServerConfigurationError("--\(flag) needs a value") }
            defer { index += 1 }
            return arguments[index]
        }
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ServerConfigurationError("unexpected argument '\(argument)'; settings are given as --name VALUE")
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if name == "config" {
                configFile = URL(fileURLWithPath: try value(for: name, inline: inline))
                continue
            }
            guard let setting = ServerSetting.all.first(where: { $0.flag == name }) else {
                let known = ["--config"] + ServerSetting.all.compactMap { $0.flag.map { "--\($0)" } }
                throw ServerConfigurationError("unknown option '--\(name)'; known: \(known.joined(separator: ", "))")
            }
            switch setting.form {
            case .on, .off:
                guard inline == nil else { throw ServerConfigurationError("--\(name) takes no value") }
                given[name] = [setting.form == .on ? "true" : "false"]
            case .value: given[name] = [try value(for: name, inline: inline)]
            case .list: given[name, default: []].append(try value(for: name, inline: inline))
            }
        }
        values = ServerSetting.all.compactMap { setting in
            setting.flag.flatMap { given[$0] }.map { (setting, $0) }
        }
    }
}

/// A JSON value of the config file, read as the text a flag would give.
private enum ConfigValue: Decodable {
    case text(String)
    case list([ConfigValue])
    case object([String: ConfigValue])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .text(String(value))
        } else if let value = try? container.decode(Int.self) {
            self = .text(String(value))
        } else if let value = try? container.decode(Double.self) {
            self = .text(String(value))
        } else if let value = try? container.decode(String.self) {
            self = .text(value)
        } else if let value = try? container.decode([ConfigValue].self) {
            self = .list(value)
        } else {
            self = .object(try container.decode([String: ConfigValue].self))
        }
    }

    /// A value's texts: one for a scalar, the items of a list, `NAME=VALUE` for an object's members.
    var texts: [String] {
        switch self {
        case let .text(text): return [text]
        case let .list(items): return items.flatMap(\.texts)
        case let .object(members): return members.keys.sorted().map { "\($0)=\(members[$0]?.texts.first ?? "")" }
        case .null: return [""]
        }
    }

    /// Whether the dotted `path` (`memory.countLimit`) is present in this object.
    func has(path: String) -> Bool {
        var current: ConfigValue? = self
        for part in path.split(separator: ".") {
            guard case let .object(members)? = current else { return false }
            current = members[String(part)]
        }
        return current != nil
    }
}
