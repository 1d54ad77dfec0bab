/// The kinds of replaceable part a `PluginRegistry` holds.
public enum PluginKind: String, Sendable, Codable, CaseIterable {
    /// `fetcher`: a `Fetcher`; `decoder`: an `ImageDecoder`; `encoder`: an `ImageEncoder`; `hasher`: a `KeyHasher`;
    /// `evictionPolicy`: an `EvictionPolicyFactory`; `transformer`: a `TransformerFactory`; `compressor`: a
    /// `Compressor`; `sharedTier`: a `SharedCacheTierFactory`; `colorConverter`: a `ColorConverter`. The raw
    /// value, and what `String(describing:)` gives, is the case name.
    case fetcher, decoder, encoder, hasher, evictionPolicy, transformer, compressor, sharedTier, colorConverter

    /// The plural used in listings, e.g. `trove plugins --json`.
    package var plural: String {
        switch self {
        case .fetcher: "fetchers"
        case .decoder: "decoders"
        case .encoder: "encoders"
        case .hasher: "hashers"
        case .evictionPolicy: "evictionPolicies"
        case .transformer: "transformers"
        case .compressor: "compressors"
        case .sharedTier: "sharedTiers"
        case .colorConverter: "colorConverters"
        }
    }
}
