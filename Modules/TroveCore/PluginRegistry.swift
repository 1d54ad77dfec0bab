import Foundation

/// Every replaceable part of Trove, by name. A value type: copy it, add to it, and compose pipelines
/// from it. Registering a name twice is an error unless `replacing` is true.
public struct PluginRegistry: Sendable {
    private var fetchers = NamedTable<any Fetcher>(kind: .fetcher)
    private var decoders = NamedTable<any ImageDecoder>(kind: .decoder)
    private var encoders = NamedTable<any ImageEncoder>(kind: .encoder)
    private var hashers = NamedTable<any KeyHasher>(kind: .hasher)
    private var evictionPolicies = NamedTable<any EvictionPolicyFactory>(kind: .evictionPolicy)
    private var transformers = NamedTable<TransformerFactory>(kind: .transformer)
    private var compressors = NamedTable<any Compressor>(kind: .compressor)
    public private(set) var installedPlugins: [PluginInfo] = []

    /// An empty registry. `PluginRegistry.standard` (module Trove) holds the built-in set.
    public init() {}

    // MARK: Registering

    public mutating func register(fetcher: any Fetcher, replacing: Bool = false) throws {
        try fetchers.add(fetcher, named: fetcher.name, replacing: replacing)
    }

    public mutating func register(decoder: any ImageDecoder, replacing: Bool = false) throws {
        try decoders.add(decoder, named: decoder.name, replacing: replacing)
    }

    public mutating func register(encoder: any ImageEncoder, replacing: Bool = false) throws {
        try encoders.add(encoder, named: encoder.name, replacing: replacing)
    }

    public mutating func register(hasher: any KeyHasher, replacing: Bool = false) throws {
        try hashers.add(hasher, named: hasher.name, replacing: replacing)
    }

    public mutating func register(evictionPolicy: any EvictionPolicyFactory, replacing: Bool = false) throws {
        try evictionPolicies.add(evictionPolicy, named: evictionPolicy.name, replacing: replacing)
    }

    public mutating func register(transformer: TransformerFactory, replacing: Bool = false) throws {
        try transformers.add(transformer, named: transformer.name, replacing: replacing)
    }

    /// Shorthand for a transformer factory.
    public mutating func register(transformer name: String, replacing: Bool = false,
                                  make: @escaping @Sendable ([String: String]) throws -> any ImageTransformer) throws {
        try register(transformer: TransformerFactory(name: name, make: make), replacing: replacing)
    }

    public mutating func register(compressor: any Compressor, replacing: Bool = false) throws {
        if let clash = compressors.items.values.first(where: { $0.id == compressor.id && $0.name != compressor.name }) {
            throw TroveError.invalidConfiguration(
                "compressor '\(compressor.name)' uses id \(compressor.id), already taken by '\(clash.name)'; pick another id")
        }
        try compressors.add(compressor, named: compressor.name, replacing: replacing)
    }

    /// Runs a plugin's registrations as one step: if any fails, the registry is left as it was.
    public mutating func install(_ plugin: some TrovePlugin) throws {
        var copy = self
        try plugin.register(into: &copy)
        copy.installedPlugins.append(PluginInfo(name: plugin.name, version: plugin.version))
        self = copy
    }

    // MARK: Looking up

    /// The fetcher for the URL's scheme.
    public func fetcher(for url: URL) throws -> any Fetcher {
        let scheme = url.scheme?.lowercased() ?? ""
        // Sorted by name so the choice is deterministic when two fetchers claim a scheme.
        for name in fetchers.names {
            let fetcher = try fetchers.get(name)
            if fetcher.schemes.contains(scheme) { return fetcher }
        }
        let known = Set(fetchers.items.values.flatMap(\.schemes)).sorted()
        throw TroveError.unsupportedScheme(url: url.absoluteString, known: known)
    }

    public func fetcher(named name: String) throws -> any Fetcher { try fetchers.get(name) }

    /// The decoder for these bytes: the sniffed format's decoder first, then any that claims them.
    public func decoder(for data: Data) -> (any ImageDecoder)? {
        let header = data.prefix(64)
        let format = ImageFormat(sniffing: header)
        let ordered = decoders.names.compactMap { decoders.items[$0] }
        return ordered.first { $0.format == format && format != .unknown && $0.canDecode(header) }
            ?? ordered.first { $0.canDecode(header) }
    }

    public func decoder(named name: String) throws -> any ImageDecoder { try decoders.get(name) }

    /// The encoder for a format, e.g. `.png`.
    public func encoder(for format: ImageFormat) throws -> any ImageEncoder {
        if let match = encoders.names.lazy.compactMap({ self.encoders.items[$0] }).first(where: { $0.format == format }) {
            return match
        }
        throw TroveError.unknownPlugin(kind: .encoder, name: format.rawValue,
                                       known: encoders.items.values.map(\.format.rawValue).sorted())
    }

    public func encoder(named name: String) throws -> any ImageEncoder { try encoders.get(name) }
    public func hasher(named name: String) throws -> any KeyHasher { try hashers.get(name) }
    public func evictionPolicy(named name: String) throws -> any EvictionPolicyFactory {
        try evictionPolicies.get(name)
    }
    public func compressor(named name: String) throws -> any Compressor { try compressors.get(name) }

    /// The compressor whose id an entry header names, if registered.
    public func compressor(id: UInt8) -> (any Compressor)? {
        compressors.items.values.first { $0.id == id }
    }

    public func transformerFactory(named name: String) throws -> TransformerFactory { try transformers.get(name) }

    /// Builds one transformer from a parsed spec step.
    public func transformer(named name: String, parameters: [String: String] = [:]) throws -> any ImageTransformer {
        try transformers.get(name).makeTransformer(parameters: parameters)
    }

    // MARK: Listing

    /// Registered names of one kind, sorted.
    public func names(of kind: PluginKind) -> [String] {
        switch kind {
        case .fetcher: fetchers.names
        case .decoder: decoders.names
        case .encoder: encoders.names
        case .hasher: hashers.names
        case .evictionPolicy: evictionPolicies.names
        case .transformer: transformers.names
        case .compressor: compressors.names
        }
    }

    /// Every kind with its names, as `trove plugins` shows them.
    public var listing: [PluginKind: [String]] {
        Dictionary(uniqueKeysWithValues: PluginKind.allCases.map { ($0, names(of: $0)) })
    }
}
