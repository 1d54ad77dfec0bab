/// The kinds of replaceable part a `PluginRegistry` holds.
public enum PluginKind: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case fetcher, decoder, encoder, hasher, evictionPolicy, transformer, compressor, sharedTier

    public var description: String { rawValue }

    /// The plural used in listings, e.g. `trove plugins --json`.
    public var plural: String {
        switch self {
        case .fetcher: "fetchers"
        case .decoder: "decoders"
        case .encoder: "encoders"
        case .hasher: "hashers"
        case .evictionPolicy: "evictionPolicies"
        case .transformer: "transformers"
        case .compressor: "compressors"
        case .sharedTier: "sharedTiers"
        }
    }
}
