import TroveCodec
import TroveCore
import TroveDiskCache
import TroveEviction
import TroveFetcher
import TroveTransformers

extension PluginRegistry {
    /// Every plugin that ships in Trove's own modules. Start here, install more, compose pipelines.
    public static var standard: PluginRegistry {
        var registry = PluginRegistry()
        // Names are unique by construction here, so a throw would be a programming error in Trove itself.
        do {
            try registry.register(fetcher: HTTPFetcher())
            try registry.register(fetcher: FileFetcher())
            try registry.register(fetcher: DataURLFetcher())
            try registry.register(decoder: PNGDecoder())
            try registry.register(decoder: GIFDecoder())
            try registry.register(encoder: PNGEncoder())
            try registry.register(hasher: SHA256Hasher())
            try registry.register(hasher: MD5Hasher())
            try registry.register(evictionPolicy: LRUPolicyFactory())
            try registry.register(evictionPolicy: FIFOPolicyFactory())
            try registry.register(evictionPolicy: LFUPolicyFactory())
            try registry.register(evictionPolicy: SIEVEPolicyFactory())
            try registry.register(evictionPolicy: S3FIFOPolicyFactory())
            try registry.register(evictionPolicy: WTinyLFUPolicyFactory())
            for factory in StandardTransformers.factories { try registry.register(transformer: factory) }
            try registry.register(compressor: NoCompressor())
            try registry.register(compressor: ZlibCompressor())
        } catch {
            fatalError("Trove's standard registry is inconsistent: \(error)")
        }
        return registry
    }
}
