import Foundation

/// Every replaceable part of Trove, by name. A value type: copy it, add to it, and compose pipelines
/// from it. Registering a name twice is an error unless `replacing` is true.
///
/// Precedence: where two decoders, encoders, fetchers or shared tiers claim the same format or URL scheme,
/// the one registered latest wins, so an app can override a built-in by registering its own after
/// `PluginRegistry.standard`. Inside one `install(_:)`, two claims on the same format or scheme are an
/// error: a plugin must say which of its parts serves what.
public struct PluginRegistry: Sendable {
    private var fetchers = NamedTable<any Fetcher>(kind: .fetcher)
    private var decoders = NamedTable<any ImageDecoder>(kind: .decoder)
    private var encoders = NamedTable<any ImageEncoder>(kind: .encoder)
    private var hashers = NamedTable<any KeyHasher>(kind: .hasher)
    private var evictionPolicies = NamedTable<any EvictionPolicyFactory>(kind: .evictionPolicy)
    private var transformers = NamedTable<TransformerFactory>(kind: .transformer)
    private var compressors = NamedTable<any Compressor>(kind: .compressor)
    private var sharedTiers = NamedTable<any SharedCacheTierFactory>(kind: .sharedTier)
    private var colorConverters = NamedTable<any ColorConverter>(kind: .colorConverter)
    /// Counts registrations, so lookups by format or scheme can prefer the latest.
    private var sequence = 0
    /// The plugins installed so far, in order.
    public private(set) var installedPlugins: [PluginInfo] = []

    /// An empty registry. `PluginRegistry.standard` (module Trove) holds the built-in set.
    public init() {}

    private mutating func nextSequence() -> Int {
        sequence += 1
        return sequence
    }

    // MARK: Registering

    /// Adds a fetcher; it serves its schemes from now on, ahead of any registered before it.
    public mutating func register(fetcher: any Fetcher, replacing: Bool = false) throws {
        try fetchers.add(fetcher, named: fetcher.name, replacing: replacing, sequence: nextSequence())
    }

    /// Adds a decoder; it is asked before any registered earlier whether bytes are its format.
    public mutating func register(decoder: any ImageDecoder, replacing: Bool = false) throws {
        try decoders.add(decoder, named: decoder.name, replacing: replacing, sequence: nextSequence())
    }

    /// Adds an encoder; it serves its format from now on, ahead of any registered before it.
    public mutating func register(encoder: any ImageEncoder, replacing: Bool = false) throws {
        try encoders.add(encoder, named: encoder.name, replacing: replacing, sequence: nextSequence())
    }

    /// Adds a key hasher, found by its name (`"sha256"`).
    public mutating func register(hasher: any KeyHasher, replacing: Bool = false) throws {
        try hashers.add(hasher, named: hasher.name, replacing: replacing, sequence: nextSequence())
    }

    /// Adds an eviction policy, found by its name (`"lru"`).
    public mutating func register(evictionPolicy: any EvictionPolicyFactory, replacing: Bool = false) throws {
        try evictionPolicies.add(
            evictionPolicy, named: evictionPolicy.name, replacing: replacing,
            sequence: nextSequence())
    }

    /// Adds a transformer factory, found by its name in transform specs (`"resize"`).
    public mutating func register(transformer: TransformerFactory, replacing: Bool = false) throws {
        try transformers.add(transformer, named: transformer.name, replacing: replacing, sequence: nextSequence())
    }

    /// Shorthand for a transformer factory.
    public mutating func register(
        transformer name: String, replacing: Bool = false,
        make: @escaping @Sendable ([String: String]) throws -> any ImageTransformer
    ) throws {
        try register(transformer: TransformerFactory(name: name, make: make), replacing: replacing)
    }

    /// Adds a disk-entry compressor; its one-byte id must not be another compressor's.
    public mutating func register(compressor: any Compressor, replacing: Bool = false) throws {
        if let clash = compressors.items.values.first(where: { $0.id == compressor.id && $0.name != compressor.name }) {
            throw TroveError.invalidConfiguration(
                "compressor '\(compressor.name)' uses id \(compressor.id), already taken by '\(clash.name)'; pick another id"
            )
        }
        try compressors.add(compressor, named: compressor.name, replacing: replacing, sequence: nextSequence())
    }

    /// Adds a shared cache tier factory; it serves its URL schemes from now on, ahead of any registered before it.
    public mutating func register(sharedTier: any SharedCacheTierFactory, replacing: Bool = false) throws {
        try sharedTiers.add(sharedTier, named: sharedTier.name, replacing: replacing, sequence: nextSequence())
    }

    /// Adds a colour converter; pipelines use the latest registered to bring decoded pixels to sRGB.
    public mutating func register(colorConverter: any ColorConverter, replacing: Bool = false) throws {
        try colorConverters.add(
            colorConverter, named: colorConverter.name, replacing: replacing, sequence: nextSequence())
    }

    /// Runs a plugin's registrations as one step: if any fails, or two of its parts claim the same format
    /// or scheme, the registry is left as it was.
    public mutating func install(_ plugin: some TrovePlugin) throws {
        var copy = self
        let start = copy.sequence + 1
        try plugin.register(into: &copy)
        try copy.checkClaims(since: start, plugin: plugin.name)
        copy.installedPlugins.append(PluginInfo(name: plugin.name, version: plugin.version))
        self = copy
    }

    /// Throws when two registrations made since `start` claim one format or scheme.
    private func checkClaims(since start: Int, plugin: String) throws {
        func check(_ kind: PluginKind, _ claims: [(name: String, claims: [String])], what: String) throws {
            var owner: [String: String] = [:]
            for (name, claimed) in claims {
                for claim in claimed {
                    if let first = owner[claim] {
                        throw TroveError.invalidConfiguration(
                            "plugin '\(plugin)' registers two \(kind.plural) for \(what) '\(claim)' ('\(first)' and "
                                + "'\(name)'); register one, or install them as separate plugins so the later wins")
                    }
                    owner[claim] = name
                }
            }
        }
        try check(
            .decoder, decoders.registered(since: start).map { ($0.name, [$0.plugin.format.rawValue]) },
            what: "format")
        try check(
            .encoder, encoders.registered(since: start).map { ($0.name, [$0.plugin.format.rawValue]) },
            what: "format")
        try check(
            .fetcher, fetchers.registered(since: start).map { ($0.name, $0.plugin.schemes.sorted()) },
            what: "scheme")
        try check(
            .sharedTier, sharedTiers.registered(since: start).map { ($0.name, $0.plugin.schemes.sorted()) },
            what: "scheme")
    }

    // MARK: Looking up

    /// The fetcher for the URL's scheme: the latest registered that declares it.
    package func fetcher(for url: URL) throws -> any Fetcher {
        let scheme = url.scheme?.lowercased() ?? ""
        if let match = fetchers.newestFirst.first(where: { $0.plugin.schemes.contains(scheme) }) {
            return match.plugin
        }
        throw TroveError.unsupportedScheme(
            url: url.absoluteString, known: knownSchemes(fetchers.items.values.map(\.schemes)))
    }

    /// The fetcher registered under `name`.
    package func fetcher(named name: String) throws -> any Fetcher { try fetchers.get(name) }

    /// The decoder for these bytes: the latest registered decoder that recognises their leading bytes.
    package func decoder(for data: Data) -> (any ImageDecoder)? {
        let header = data.prefix(ImageFormat.sniffLength)
        return decoders.newestFirst.first { $0.plugin.canDecode(header) }?.plugin
    }

    /// The format of these bytes, as the registered decoders recognise it; nil when none does.
    package func format(of data: Data) -> ImageFormat? { decoder(for: data)?.format }

    /// The decoder for a format: the latest registered that reads it.
    package func decoder(for format: ImageFormat) throws -> any ImageDecoder {
        if let match = decoders.newestFirst.first(where: { $0.plugin.format == format }) { return match.plugin }
        throw TroveError.unknownPlugin(kind: .decoder, name: format.rawValue, known: decodableFormats.map(\.rawValue))
    }

    /// The decoder registered under `name`.
    public func decoder(named name: String) throws -> any ImageDecoder { try decoders.get(name) }

    /// The encoder for a format, e.g. `.png`: the latest registered that writes it.
    package func encoder(for format: ImageFormat) throws -> any ImageEncoder {
        if let match = encoders.newestFirst.first(where: { $0.plugin.format == format }) { return match.plugin }
        throw TroveError.unknownPlugin(kind: .encoder, name: format.rawValue, known: encodableFormats.map(\.rawValue))
    }

    /// The encoder registered under `name`.
    public func encoder(named name: String) throws -> any ImageEncoder { try encoders.get(name) }
    /// The key hasher registered under `name`.
    package func hasher(named name: String) throws -> any KeyHasher { try hashers.get(name) }
    /// The eviction policy registered under `name`.
    public func evictionPolicy(named name: String) throws -> any EvictionPolicyFactory {
        try evictionPolicies.get(name)
    }
    /// The compressor registered under `name`.
    package func compressor(named name: String) throws -> any Compressor { try compressors.get(name) }

    /// The compressor whose id an entry header names, if registered.
    package func compressor(id: UInt8) -> (any Compressor)? {
        compressors.items.values.first { $0.id == id }
    }

    /// The shared tier factory for the URL's scheme: the latest registered that declares it.
    package func sharedTier(for url: URL) throws -> any SharedCacheTierFactory {
        let scheme = url.scheme?.lowercased() ?? ""
        if let match = sharedTiers.newestFirst.first(where: { $0.plugin.schemes.contains(scheme) }) {
            return match.plugin
        }
        throw TroveError.invalidConfiguration(
            "no shared cache tier serves '\(scheme)://' URLs; registered schemes: "
                + "\(knownSchemes(sharedTiers.items.values.map(\.schemes)).joined(separator: ", ")); install a plugin such as TroveRedis"
        )
    }

    /// The colour converter pipelines use: the latest registered; nil when none is (pixels stay as decoded).
    package var colorConverter: (any ColorConverter)? { colorConverters.newestFirst.first?.plugin }

    /// The colour converter registered under `name`.
    package func colorConverter(named name: String) throws -> any ColorConverter { try colorConverters.get(name) }

    /// The transformer factory registered under `name`.
    package func transformerFactory(named name: String) throws -> TransformerFactory { try transformers.get(name) }

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
        case .sharedTier: sharedTiers.names
        case .colorConverter: colorConverters.names
        }
    }

    /// Every kind with its names, as `trove plugins` shows them.
    package var listing: [PluginKind: [String]] {
        Dictionary(uniqueKeysWithValues: PluginKind.allCases.map { ($0, names(of: $0)) })
    }

    /// Formats some registered decoder reads, sorted by name.
    package var decodableFormats: [ImageFormat] {
        Set(decoders.items.values.map(\.format)).sorted { $0.rawValue < $1.rawValue }
    }

    /// Formats some registered encoder writes, sorted by name.
    package var encodableFormats: [ImageFormat] {
        Set(encoders.items.values.map(\.format)).sorted { $0.rawValue < $1.rawValue }
    }

    /// Per format, the decoder and encoder that will be used (by name); per URL scheme, the fetcher and
    /// shared tier. This is what `trove plugins --json` shows as `formats` and `schemes`.
    package var routing: PluginRouting {
        var formats: [String: PluginRouting.FormatRoute] = [:]
        for format in Set(decodableFormats + encodableFormats) {
            formats[format.rawValue] = PluginRouting.FormatRoute(
                decoder: (try? decoder(for: format))?.name, encoder: (try? encoder(for: format))?.name)
        }
        var schemes: [String: PluginRouting.SchemeRoute] = [:]
        let fetcherSchemes = knownSchemes(fetchers.items.values.map(\.schemes))
        for scheme in Set(fetcherSchemes + knownSchemes(sharedTiers.items.values.map(\.schemes))) {
            schemes[scheme] = PluginRouting.SchemeRoute(
                fetcher: fetchers.newestFirst.first { $0.plugin.schemes.contains(scheme) }?.name,
                sharedTier: sharedTiers.newestFirst.first { $0.plugin.schemes.contains(scheme) }?.name)
        }
        return PluginRouting(formats: formats, schemes: schemes)
    }

    /// The union of what some plugins declare, sorted.
    private func knownSchemes(_ declared: some Sequence<Set<String>>) -> [String] {
        Set(declared.joined()).sorted()
    }
}

/// Which plugin serves each format and scheme (`PluginRegistry.routing`).
package struct PluginRouting: Sendable, Equatable, Codable {
    /// The decoder and encoder (registry names) used for one format; nil where none is registered.
    package struct FormatRoute: Sendable, Equatable, Codable {
        /// Registry name of the decoder used for this format; nil when none reads it.
        package var decoder: String?
        /// Registry name of the encoder used for this format; nil when none writes it.
        package var encoder: String?

        /// A route naming the decoder and encoder.
        package init(decoder: String?, encoder: String?) {
            self.decoder = decoder
            self.encoder = encoder
        }
    }

    /// The fetcher and shared tier (registry names) used for one URL scheme; nil where none is registered.
    package struct SchemeRoute: Sendable, Equatable, Codable {
        /// Registry name of the fetcher used for this scheme; nil when none serves it.
        package var fetcher: String?
        /// Registry name of the shared tier factory used for this scheme; nil when none serves it.
        package var sharedTier: String?

        /// A route naming the fetcher and shared tier.
        package init(fetcher: String?, sharedTier: String?) {
            self.fetcher = fetcher
            self.sharedTier = sharedTier
        }
    }

    /// Keyed by format name.
    package var formats: [String: FormatRoute]
    /// Keyed by lowercase URL scheme.
    package var schemes: [String: SchemeRoute]
}
