import AsyncHTTPClient
import Synchronization

/// HTTP clients each pinned to one checked address for one host name, kept between fetches so that their
/// connections are reused. A client made for every fetch opened a new TCP connection, and for https a new
/// TLS session, for every source: the handshake was about 30% of a cold `trove serve` request's CPU.
///
/// Reuse keeps `GuardedHTTPFetcher`'s guard whole: a client connects only where its `dnsOverride` points, and
/// it is handed out again only for the same host when its address is among those just checked for it, so a
/// name that resolves elsewhere later gets another client. At most `capacity` clients are kept; past that the
/// least recently used one is shut down as soon as no hop is using it.
package final class PinnedClientPool: Sendable {
    /// Which host a client serves and where it connects for that host.
    struct Key: Hashable, Sendable {
        /// The host as the URL writes it (an IPv6 literal without its brackets).
        let host: String
        /// The checked address the host is pinned to.
        let address: IPAddress
    }

    private struct Entry {
        let client: HTTPClient
        var hops: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    /// The pool every guarded fetcher in the process shares, like `sharedHTTPClient`: it lives as long as
    /// the process.
    package static let shared = PinnedClientPool(capacity: 64)

    private let capacity: Int
    private let state = Mutex(State())

    /// A pool keeping at most `capacity` clients (at least one) once their hops are over.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    deinit {
        // The pool is gone, so nobody holds a hop: every client can go.
        for entry in state.withLock({ $0.entries.values }) { entry.client.shutdown { _ in } }
    }

    /// How many clients are kept now, in use or idle.
    package var count: Int { state.withLock { $0.entries.count } }

    /// A client for `host` pinned to one of `addresses` (every one of them checked; at least one), kept or
    /// new, and what to call once the hop on it is over. A kept client for any of them is preferred: a name
    /// whose answers come in a different order each time stays on one client.
    func hop(toHost host: String, anyOf addresses: [IPAddress]) -> HTTPHop {
        let (key, client, evicted) = state.withLock { state -> (Key, HTTPClient, HTTPClient?) in
            state.clock += 1
            let kept = addresses.lazy.map { Key(host: host, address: $0) }.first { state.entries[$0] != nil }
            if let key = kept, var entry = state.entries[key] {
                entry.hops += 1
                entry.lastUse = state.clock
                state.entries[key] = entry
                return (key, entry.client, nil)
            }
            let key = Key(host: host, address: addresses[0])
            let client = Self.pinnedClient(key)
            state.entries[key] = Entry(client: client, hops: 1, lastUse: state.clock)
            return (key, client, state.entries.count > capacity ? Self.removeLeastRecentIdle(from: &state) : nil)
        }
        evicted?.shutdown { _ in }
        return HTTPHop(client: client, finish: { [self] in finished(key) })
    }

    private func finished(_ key: Key) {
        let evicted = state.withLock { state -> HTTPClient? in
            state.clock += 1
            state.entries[key]?.hops -= 1
            // Used until now: a long download is not the first to go when it ends.
            state.entries[key]?.lastUse = state.clock
            return state.entries.count > capacity ? Self.removeLeastRecentIdle(from: &state) : nil
        }
        evicted?.shutdown { _ in }
    }

    /// Takes out the least recently used client no hop is on, if there is one.
    private static func removeLeastRecentIdle(from state: inout State) -> HTTPClient? {
        let idle = state.entries.filter { $0.value.hops == 0 }
        guard let oldest = idle.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return nil }
        state.entries[oldest.key] = nil
        return oldest.value.client
    }

    /// A client with Trove's defaults that resolves `key.host` to `key.address` and to nothing else.
    private static func pinnedClient(_ key: Key) -> HTTPClient {
        var configuration = HTTPFetcher.defaultClientConfiguration
        // AsyncHTTPClient looks the override up by the host as written, bracketed for IPv6 literals.
        configuration.dnsOverride = [key.host: key.address.description, "[\(key.host)]": key.address.description]
        configuration.proxy = nil
        // One client now serves every fetch from its origin, so AsyncHTTPClient's 8 connections per host
        // would queue fetches the scheduler let through (`trove serve` allows 16 per host); the scheduler's
        // per-host limit is the one that bounds them.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        // Closed after 4 s idle, before the 5 s after which Apache and Node close theirs: a request written to a
        // connection the origin is closing at that moment fails, and kept sockets stay few.
        configuration.connectionPool.idleTimeout = .seconds(4)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
