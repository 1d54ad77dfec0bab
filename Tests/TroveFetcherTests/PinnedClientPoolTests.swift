import FixtureServer
import Foundation
import Testing
import TroveCore
import TroveFetcher

/// The guarded fetcher's pinned clients: fetches from one origin share a connection, a name that resolves
/// elsewhere never rides an old pin's connection, and past its capacity the pool lets its oldest idle
/// client go. The server tells connections apart by the client's port.
@Suite struct PinnedClientPoolTests {
    private static let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    private func fetcher(_ resolver: StubResolver, pool: PinnedClientPool) -> GuardedHTTPFetcher {
        GuardedHTTPFetcher(
            addressPolicy: AddressPolicy(allowLoopback: true), sourcePolicy: .anyHTTPSource, resolver: resolver,
            redirectLimit: HTTPFetcher.defaultRedirectLimit, clients: pool)
    }

    private func clientPorts(_ server: FixtureServer) -> [Int] {
        server.requestLog.compactMap(\.clientPort)
    }

    @Test func fetchesFromOneOriginReuseAConnection() async throws {
        try await withServer(["/blob": .file(Self.body, contentType: "application/octet-stream")]) { server in
            let pool = PinnedClientPool(capacity: 4)
            let resolver = StubResolver(["origin.test": ["127.0.0.1"]])
            let guarded = fetcher(resolver, pool: pool)
            let url = URL(string: "http://origin.test:\(server.port ?? 0)/blob")!
            for _ in 0..<3 {
                let data = try await fetchData(url, fetcher: guarded)
                #expect(data == Self.body)
            }
            let ports = clientPorts(server)
            #expect(ports.count == 3 && Set(ports).count == 1, "client ports \(ports)")
            #expect(pool.count == 1)
            // Every fetch still asks the resolver: the pin is checked anew each time.
            #expect(resolver.asked == ["origin.test", "origin.test", "origin.test"])
        }
    }

    /// The second answer, 127.0.0.2, has no server on it: the fetch fails to connect there instead of
    /// reusing the open connection to 127.0.0.1 that the first answer's client holds.
    @Test func aNameThatResolvesElsewhereGetsAClientOfItsOwn() async throws {
        try await withServer(["/blob": .file(Self.body, contentType: "application/octet-stream")]) { server in
            let pool = PinnedClientPool(capacity: 4)
            let guarded = fetcher(StubResolver(turns: ["origin.test": [["127.0.0.1"], ["127.0.0.2"]]]), pool: pool)
            let url = URL(string: "http://origin.test:\(server.port ?? 0)/blob")!
            let first = try await fetchData(url, fetcher: guarded)
            #expect(first == Self.body)
            let error = await caughtError { _ = try await fetchData(url, timeout: .seconds(5), fetcher: guarded) }
            // Refused at 127.0.0.2: an unpinned client would have failed to resolve the made-up name instead.
            guard case let .connectionFailed(_, reason)? = error as? TroveError, reason.contains("refused") else {
                Issue.record("expected a refused connection to 127.0.0.2, got \(String(describing: error))")
                return
            }
            #expect(server.requestCount(for: "/blob") == 1)
            #expect(pool.count == 2)
        }
    }

    /// A name whose answers come in another order each time stays on the client it has: the second fetch's
    /// first answer, 127.0.0.2, has no server, so only the kept client pinned to 127.0.0.1 can fetch it.
    @Test func shuffledAnswersStayOnTheKeptClient() async throws {
        try await withServer(["/blob": .file(Self.body, contentType: "application/octet-stream")]) { server in
            let pool = PinnedClientPool(capacity: 4)
            let resolver = StubResolver(turns: ["origin.test": [["127.0.0.1", "127.0.0.2"], ["127.0.0.2", "127.0.0.1"]]]
            )
            let guarded = fetcher(resolver, pool: pool)
            let url = URL(string: "http://origin.test:\(server.port ?? 0)/blob")!
            for _ in 0..<2 {
                let data = try await fetchData(url, fetcher: guarded)
                #expect(data == Self.body)
            }
            let ports = clientPorts(server)
            #expect(ports.count == 2 && Set(ports).count == 1, "client ports \(ports)")
            #expect(pool.count == 1)
        }
    }

    /// With room for one client, a second host's client pushes the first out: the first host's next fetch
    /// comes on a new connection.
    @Test func theOldestIdleClientGoesPastCapacity() async throws {
        try await withServer(["/blob": .file(Self.body, contentType: "application/octet-stream")]) { server in
            let pool = PinnedClientPool(capacity: 1)
            let guarded = fetcher(StubResolver([:]), pool: pool)
            let port = server.port ?? 0
            for host in ["127.0.0.1", "127.0.0.1", "127.1", "127.0.0.1"] {
                let data = try await fetchData(URL(string: "http://\(host):\(port)/blob")!, fetcher: guarded)
                #expect(data == Self.body, "\(host)")
            }
            let ports = clientPorts(server)
            #expect(ports.count == 4, "client ports \(ports)")
            if ports.count == 4 {
                #expect(ports[0] == ports[1] && ports[2] != ports[0] && ports[3] != ports[0], "client ports \(ports)")
            }
            #expect(pool.count == 1)
        }
    }

    /// Hops in flight keep their clients past the capacity; once they are over, the pool is back within it.
    @Test func clientsInUseOutlastTheCapacityUntilTheirHopsEnd() async throws {
        let gate = FixtureGate()
        try await withServer(["/held": .gated(Self.body, contentType: "application/octet-stream", gate: gate)]) {
            server in
            let pool = PinnedClientPool(capacity: 2)
            let guarded = fetcher(StubResolver([:]), pool: pool)
            let port = server.port ?? 0
            let hosts = ["127.0.0.1", "127.1", "2130706433", "0x7f.1", "0177.0.0.1", "localhost"]
            let fetches = Task {
                try await withThrowingTaskGroup(of: Data.self) { group in
                    for host in hosts {
                        group.addTask {
                            try await fetchData(URL(string: "http://\(host):\(port)/held")!, fetcher: guarded)
                        }
                    }
                    return try await group.reduce(into: [Data]()) { $0.append($1) }
                }
            }
            await gate.waitForArrivals(hosts.count)
            #expect(pool.count == hosts.count)
            gate.open()
            let bodies = try await fetches.value
            #expect(bodies.count == hosts.count && bodies.allSatisfy { $0 == Self.body })
            #expect(pool.count == 2)
        }
    }
}
