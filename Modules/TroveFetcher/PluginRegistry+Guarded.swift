import Foundation
import TroveCore

extension PluginRegistry {
    /// Makes the registry safe for fetching strangers' URLs: `fetcher` replaces the "http" fetcher, and the
    /// "file" and "data" fetchers are `FileFetcher` and `DataURLFetcher` when its source policy allows them,
    /// else `RefusingFetcher`s. The "s3" fetcher a plugin registered is held to the policy's prefixes when it
    /// allows s3: sources (without one, they are an unsupported scheme), and refused otherwise. Call after `PluginRegistry.standard` and the plugins.
    package mutating func registerGuarded(_ fetcher: GuardedHTTPFetcher) throws {
        let policy = fetcher.sourcePolicy
        try register(fetcher: fetcher, replacing: true)
        if policy.allowFileURLs {
            try register(fetcher: GuardedLocalFetcher(FileFetcher(), policy: policy), replacing: true)
        } else {
            try register(fetcher: RefusingFetcher(name: "file", schemes: ["file"], policy: policy), replacing: true)
        }
        if policy.allowDataURLs {
            try register(fetcher: DataURLFetcher(), replacing: true)
        } else {
            try register(fetcher: RefusingFetcher(name: "data", schemes: ["data"], policy: policy), replacing: true)
        }
        let s3 = try? self.fetcher(for: URL(string: "s3://bucket")!)
        if !policy.allowS3URLs {
            try register(fetcher: RefusingFetcher(name: "s3", schemes: ["s3"], policy: policy), replacing: true)
        } else if let s3 {
            try register(fetcher: Self.guarding(s3, policy: policy), replacing: true)
        }
    }

    /// `inner` behind the policy's check.
    private static func guarding(_ inner: some Fetcher, policy: SourcePolicy) -> any Fetcher {
        GuardedLocalFetcher(inner, policy: policy)
    }
}
