import TroveCore

/// Adds S3 to a registry, `try registry.install(TroveS3Plugin())`: the shared cache tier for
/// `s3://bucket[/prefix]?…` URLs (`S3TierFactory`), and the fetcher for `s3://bucket/key` sources
/// (`S3Fetcher`) unless `sources` is nil.
public struct TroveS3Plugin: TrovePlugin {
    /// "s3".
    public let name = "s3"
    /// The plugin's version.
    public let version = "1.1.0"
    private let environment: [String: String]?
    private let sources: S3SourceSettings?

    /// The plugin; its tier and fetcher read credentials from `environment` (the process's when nil).
    /// `sources` says where `s3://` sources are read from (nil: the plugin registers no fetcher).
    public init(environment: [String: String]? = nil, sources: S3SourceSettings? = S3SourceSettings()) {
        self.environment = environment
        self.sources = sources
    }

    /// Registers `S3TierFactory`, and `S3Fetcher` when `sources` is given.
    public func register(into registry: inout PluginRegistry) throws {
        if let environment {
            try registry.register(sharedTier: S3TierFactory(environment: environment))
        } else {
            try registry.register(sharedTier: S3TierFactory())
        }
        if let sources {
            if let environment {
                try registry.register(fetcher: S3Fetcher(settings: sources, environment: environment))
            } else {
                try registry.register(fetcher: S3Fetcher(settings: sources))
            }
        }
    }
}
