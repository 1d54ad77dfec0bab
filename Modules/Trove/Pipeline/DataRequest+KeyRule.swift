import TroveCore

extension DataRequest {
    /// This request keyed by a pipeline's `rule`: the rule's source becomes the custom key, so every key the
    /// request derives (`cacheKey`, the method-and-body key) is made from it. A custom key of its own stays.
    func keyed(by rule: CacheKeyRule) -> DataRequest {
        guard customCacheKey == nil, !rule.isIdentity else { return self }
        var keyed = self
        keyed.customCacheKey = rule.source(for: url)
        return keyed
    }
}
