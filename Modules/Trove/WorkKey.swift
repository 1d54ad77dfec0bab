/// Names one piece of coalesced work: the storage key it is for, and which kind of work it is. A reload
/// and a plain load of one key, or a fetch and a revalidation, are different work with different outcomes.
struct WorkKey: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// Cache, else network (the default policies).
        case load
        /// Network regardless of the cache.
        case reload
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

    init(_ key: String, _ kind: Kind = .load) {
        self.key = key
        self.kind = kind
    }
}
