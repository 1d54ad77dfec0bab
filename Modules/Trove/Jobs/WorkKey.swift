import TroveCore

/// Names one piece of coalesced work: the storage key it is for, which kind of work it is, and the cache
/// policy of the callers who share it. A fetch and a revalidation of one key are different work with
/// different outcomes; so are a reload and a plain load, since the policy decides which tiers the work
/// reads and writes (a reload never reads the shared tier, a memory-only load writes no disk).
struct WorkKey: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// Cache (as the policy allows), else network.
        case load
        /// The same for a caller that reads only the encoded bytes (`ImageRequest.Options.needsOnlyData`):
        /// its response may carry no pixels, so it never answers a caller that wants them.
        case loadData
        /// A conditional fetch of a cached entry.
        case revalidate
        /// One caller's own fetch, shared with nobody: the origin may act on every such request (a POST
        /// nobody caches), so two identical ones in flight are two requests.
        case alone(waiter: UInt64)
        /// Computing a placeholder of this kind (`PlaceholderKind.identifier`) from the key's bytes.
        case placeholder(String)
    }

    let key: String
    let kind: Kind
    let policy: CachePolicy

    init(_ key: String, _ kind: Kind = .load, policy: CachePolicy) {
        self.key = key
        self.kind = kind
        self.policy = policy
    }
}
