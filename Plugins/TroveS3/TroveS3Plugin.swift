import TroveCore

/// Adds the S3 shared cache tier (`s3://` URLs) to a registry: `try registry.install(TroveS3Plugin())`.
public struct TroveS3Plugin: TrovePlugin {
    /// "s3".
    public let name = "s3"
    /// The plugin's version.
    public let version = "1.0.0"
    private let environment: [String: String]?

    /// The plugin; its tiers read credentials from `environment` (the process's when nil).
    public init(environment: [String: String]? = nil) {
        self.environment = environment
    }

    /// Registers `S3TierFactory`.
    public func register(into registry: inout PluginRegistry) throws {
        if let environment {
            try registry.register(sharedTier: S3TierFactory(environment: environment))
        } else {
            try registry.register(sharedTier: S3TierFactory())
        }
    }
}
