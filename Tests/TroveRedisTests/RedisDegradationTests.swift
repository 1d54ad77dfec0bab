import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveRedis

/// The reason of a `sharedTierUnavailable` thrown by `body`, or nil (recorded as an issue) for anything else.
func unavailableReason(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        Issue.record("expected sharedTierUnavailable, but the call succeeded")
    } catch let TroveError.sharedTierUnavailable(reason) {
        return reason
    } catch {
        Issue.record("expected sharedTierUnavailable, got \(error)")
    }
    return nil
}

@Suite struct RedisDegradationTests {
    @Test func aKilledServerFailsFastAndARestartedOneIsUsedAgain() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                try await tier.set("k", value: Data("before".utf8), ttl: .seconds(60))
                #expect(try await tier.get("k") == Data("before".utf8))

                await server.kill()
                for _ in 0..<5 {
                    let start = ContinuousClock.now
                    let reason = await unavailableReason { _ = try await tier.get("k") }
                    #expect(ContinuousClock.now - start < .seconds(2))
                    #expect(reason?.contains("127.0.0.1:\(server.port)") == true)
                }
                let start = ContinuousClock.now
                _ = await unavailableReason { try await tier.set("k", value: Data("x".utf8), ttl: .seconds(1)) }
                _ = await unavailableReason { _ = try await tier.acquireLease(on: "k", ttl: .seconds(1)) }
                #expect(ContinuousClock.now - start < .seconds(2))
                #expect(tier.statistics().errors == 7)

                // Same port, new process (empty: nothing was saved); the same tier object reconnects.
                try await server.restart()
                let recovered = await eventually(within: .seconds(20)) {
                    (try? await tier.set("k", value: Data("after".utf8), ttl: .seconds(60))) != nil
                }
                #expect(recovered)
                #expect(try await tier.get("k") == Data("after".utf8))
            }
        }
    }

    @Test func nothingListeningFailsFast() async throws {
        let port = try freeLoopbackPort()
        try await withTier(URL(string: "redis://127.0.0.1:\(port)")!) { tier in
            for _ in 0..<3 {
                let start = ContinuousClock.now
                let reason = await unavailableReason { _ = try await tier.get("k") }
                #expect(ContinuousClock.now - start < .seconds(2))
                #expect(reason?.contains("cannot connect") == true || reason?.contains("next attempt") == true)
            }
        }
    }

    @Test func aServerRefusingWritesIsUnavailableWithItsMessage() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                try await tier.set("small", value: Data("fits".utf8), ttl: .seconds(60))
                let admin = server.adminClient()
                #expect(try await admin.send("CONFIG", "SET", "maxmemory-policy", "noeviction") == .simpleString("OK"))
                #expect(try await admin.send("CONFIG", "SET", "maxmemory", "1") == .simpleString("OK"))
                let reason = await unavailableReason {
                    try await tier.set("big", value: Data(repeating: 1, count: 1000), ttl: .seconds(60))
                }
                #expect(reason?.contains("OOM") == true)
                #expect(reason?.contains("SET") == true)
                // Reads still work; the connection survives a server error.
                #expect(try await tier.get("small") == Data("fits".utf8))
                #expect(try await admin.send("CONFIG", "SET", "maxmemory", "0") == .simpleString("OK"))
                try await tier.set("big", value: Data(repeating: 1, count: 1000), ttl: .seconds(60))
                await admin.shutdown()
                #expect(tier.statistics().errors == 1)
            }
        }
    }

    @Test func aReplicaRefusingWritesIsUnavailable() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                let admin = server.adminClient()
                // A replica of a master that is not there: it stays read-only.
                let deadPort = try freeLoopbackPort()
                #expect(try await admin.send("REPLICAOF", "127.0.0.1", String(deadPort)) == .simpleString("OK"))
                let reason = await unavailableReason { try await tier.set("k", value: Data(), ttl: .seconds(1)) }
                #expect(reason?.contains("READONLY") == true)
                _ = try await admin.send("REPLICAOF", "NO", "ONE")
                await admin.shutdown()
            }
        }
    }

    @Test func aStalledServerTimesOutAndRecovers() async throws {
        try await withRedisServer { server in
            let options = SharedTierOptions(commandTimeout: .milliseconds(200), connections: 1)
            try await withTier(server.url(), options: options) { tier in
                try await tier.set("k", value: Data("v".utf8), ttl: .seconds(60))
                await server.pause(true)
                let start = ContinuousClock.now
                let reason = await unavailableReason { _ = try await tier.get("k") }
                #expect(ContinuousClock.now - start < .seconds(5))
                #expect(reason?.contains("no reply within 200 ms") == true)
                await server.pause(false)
                let recovered = await eventually(within: .seconds(20)) {
                    (try? await tier.get("k")) == Data("v".utf8)
                }
                #expect(recovered)
            }
        }
    }

    @Test func aShutDownTierIsUnavailable() async throws {
        try await withRedisServer { server in
            let tier = try RedisTierFactory().makeRedisTier(url: server.url(), options: SharedTierOptions())
            try await tier.set("k", value: Data("v".utf8), ttl: .seconds(60))
            await tier.shutdown()
            let reason = await unavailableReason { _ = try await tier.get("k") }
            #expect(reason?.contains("shut down") == true)
        }
    }
}
