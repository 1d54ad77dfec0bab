import TroveCore

extension PluginRegistry {
    /// Makes the registry safe for fetching strangers' URLs: `fetcher` replaces the "http" fetcher, and the
    /// "file" and "data" fetchers are `FileFetcher` and `DataURLFetcher` when its source policy allows them,
    /// else `RefusingFetcher`s. Call after `PluginRegistry.standard`.
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
    }
}
