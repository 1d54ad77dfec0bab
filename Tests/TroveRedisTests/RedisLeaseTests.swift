import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveRedis

@Suite struct RedisLeaseTests {
    @Test func onlyOneHolderAtATimeAndReleaseFreesIt() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                let first = try #require(try await tier.acquireLease(on: "img", ttl: .seconds(30)))
                #expect(first.key == "img")
                #expect(try await tier.acquireLease(on: "img", ttl: .seconds(30)) == nil)
                // Another key is independent.
                #expect(try await tier.acquireLease(on: "other", ttl: .seconds(30)) != nil)

                try await tier.releaseLease(first)
                let second = try #require(try await tier.acquireLease(on: "img", ttl: .seconds(30)))
                #expect(second.token != first.token)
            }
        }
    }

    @Test func aWrongTokenDoesNotRelease() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                let held = try #require(try await tier.acquireLease(on: "img", ttl: .seconds(30)))
                try await tier.releaseLease(SharedTierLease(key: "img", token: "not-the-token"))
                #expect(try await tier.acquireLease(on: "img", ttl: .seconds(30)) == nil)
                // A stale holder releasing after its lease passed on must not free the new holder's lease.
                try await tier.releaseLease(held)
                let next = try #require(try await tier.acquireLease(on: "img", ttl: .seconds(30)))
                try await tier.releaseLease(held)
                #expect(try await tier.acquireLease(on: "img", ttl: .seconds(30)) == nil)
                try await tier.releaseLease(next)
            }
        }
    }

    @Test func twoTiersShareLeasesThroughTheServer() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { one in
                try await withTier(server.url()) { two in
                    let lease = try #require(try await one.acquireLease(on: "shared", ttl: .seconds(30)))
                    #expect(try await two.acquireLease(on: "shared", ttl: .seconds(30)) == nil)
                    try await one.releaseLease(lease)
                    #expect(try await two.acquireLease(on: "shared", ttl: .seconds(30)) != nil)
                }
            }
        }
    }

    @Test func anUnreleasedLeaseExpiresOnItsOwn() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                _ = try #require(try await tier.acquireLease(on: "abandoned", ttl: .milliseconds(200)))
                let freed = try await eventually(within: .seconds(10)) {
                    try await tier.acquireLease(on: "abandoned", ttl: .seconds(30)) != nil
                }
                #expect(freed)
            }
        }
    }

    @Test func leasesDoNotCollideWithValues() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                try await tier.set("img", value: Data("bytes".utf8), ttl: .seconds(60))
                let lease = try #require(try await tier.acquireLease(on: "img", ttl: .seconds(30)))
                #expect(try await tier.get("img") == Data("bytes".utf8))
                try await tier.releaseLease(lease)
                #expect(try await tier.get("img") == Data("bytes".utf8))
            }
        }
    }
}
