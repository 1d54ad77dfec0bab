import Foundation
import Synchronization
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveS3

/// Leases on S3 alone against a real SeaweedFS: what the server does with conditional writes, then one
/// holder among racers, an expired lease taken over, and a release that frees only the holder's lease.
@Suite(.serialized, .seaweedServer) struct S3LeaseTests {
    var server: SeaweedTestServer {
        get throws { try #require(SeaweedServerTrait.current) }
    }

    /// A tier as a process of the fleet makes it: its own client, the suite's bucket, one prefix.
    func tier(prefix: String) throws -> S3SharedTier {
        let server = try server
        let url = URL(string: "s3://\(server.bucket)/\(prefix)?endpoint=\(server.endpoint.absoluteString)")!
        return try S3TierFactory(environment: [
            "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": server.secretAccessKey
        ]).makeS3Tier(url: url, options: SharedTierOptions(connectTimeout: .seconds(2), commandTimeout: .seconds(3)))
    }

    static func prefix() -> String { "leases-\(UUID().uuidString.prefix(8))" }

    /// What the leases rely on, asked of the server itself: `If-None-Match: *` refuses a second PUT, `If-Match`
    /// replaces or deletes only the ETag named, and of sixteen racing PUTs one wins.
    @Test func seaweedHonoursConditionalPutsAndDeletes() async throws {
        let client = try server.client()
        let key = "\(Self.prefix())/object"
        let deadline = ContinuousClock.now + .seconds(20)
        let absent = SigV4Field("if-none-match", "*")
        #expect(try await client.conditionalPut(key, body: Data("one".utf8), condition: absent, deadline: deadline))
        #expect(!(try await client.conditionalPut(key, body: Data("two".utf8), condition: absent, deadline: deadline)))
        let first = try #require(try await client.getData(key, maxBytes: 100, deadline: deadline))
        #expect(first.data == Data("one".utf8))
        let etag = try #require(first.info.etag)

        let wrong = SigV4Field("if-match", "\"0123456789abcdef0123456789abcdef\"")
        #expect(!(try await client.conditionalPut(key, body: Data("three".utf8), condition: wrong, deadline: deadline)))
        #expect(
            try await client.conditionalPut(
                key, body: Data("four".utf8), condition: SigV4Field("if-match", etag), deadline: deadline))
        // The ETag it replaced no longer matches.
        #expect(
            !(try await client.conditionalPut(
                key, body: Data("five".utf8), condition: SigV4Field("if-match", etag), deadline: deadline)))
        let second = try #require(try await client.getData(key, maxBytes: 100, deadline: deadline))
        #expect(second.data == Data("four".utf8))

        #expect(!(try await client.conditionalDelete(key, ifMatch: etag, deadline: deadline)))
        #expect(try await client.getData(key, maxBytes: 100, deadline: deadline) != nil)
        #expect(try await client.conditionalDelete(key, ifMatch: try #require(second.info.etag), deadline: deadline))
        #expect(try await client.getData(key, maxBytes: 100, deadline: deadline) == nil)

        let race = "\(Self.prefix())/race"
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await client.conditionalPut(
                        race, body: Data("racer \(index)".utf8), condition: absent, deadline: deadline)
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }

    @Test func oneOfManyRacingProcessesHoldsTheLease() async throws {
        let prefix = Self.prefix()
        let tiers = try (0..<8).map { _ in try tier(prefix: prefix) }
        let leases = try await withThrowingTaskGroup(of: SharedTierLease?.self) { group in
            for tier in tiers { group.addTask { try await tier.acquireLease(on: "photo.jpg", ttl: .seconds(30)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(leases.compactMap(\.self).count == 1)
        // Another key is free.
        #expect(try await tiers[0].acquireLease(on: "other.jpg", ttl: .seconds(30)) != nil)
        // The lease is an object under leases/, where no value's aa/bb/ name can be.
        let lease = try #require(leases.compactMap(\.self).first)
        let objectKey = tiers[0].leaseObjectKey(for: lease.key)
        #expect(objectKey.hasPrefix("\(prefix)/leases/") && objectKey != tiers[0].objectKey(for: lease.key))
        let stored = try await server.client().getData(objectKey, maxBytes: 4096, deadline: .now + .seconds(10))
        #expect(stored.flatMap { S3SharedTier.LeaseRecord($0.data) }?.token == lease.token)
    }

    @Test func onlyTheHolderReleasesTheLease() async throws {
        let prefix = Self.prefix()
        let (a, b) = (try tier(prefix: prefix), try tier(prefix: prefix))
        let held = try #require(try await a.acquireLease(on: "k", ttl: .seconds(30)))
        // A forged or stale token frees nothing.
        try await b.releaseLease(SharedTierLease(key: "k", token: "not-the-holder"))
        #expect(try await b.acquireLease(on: "k", ttl: .seconds(30)) == nil)
        try await a.releaseLease(held)
        let next = try #require(try await b.acquireLease(on: "k", ttl: .seconds(30)))
        // The first holder giving back a lease it no longer holds leaves the new holder's alone.
        try await a.releaseLease(held)
        #expect(try await a.acquireLease(on: "k", ttl: .seconds(30)) == nil)
        try await b.releaseLease(next)
        #expect(try await a.acquireLease(on: "k", ttl: .seconds(30)) != nil)
    }

    @Test func anExpiredLeaseIsTakenOverByOneProcess() async throws {
        let prefix = Self.prefix()
        let dead = try tier(prefix: prefix)
        // Its holder dies: nobody releases it.
        let expired = try #require(try await dead.acquireLease(on: "k", ttl: .milliseconds(300)))
        let tiers = try (0..<4).map { _ in try tier(prefix: prefix) }
        #expect(try await tiers[0].acquireLease(on: "k", ttl: .seconds(30)) == nil)
        try await Task.sleep(for: .milliseconds(600))
        let leases = try await withThrowingTaskGroup(of: SharedTierLease?.self) { group in
            for tier in tiers { group.addTask { try await tier.acquireLease(on: "k", ttl: .seconds(30)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(leases.compactMap(\.self).count == 1)
        // The dead holder coming back to release does not free its successor's lease.
        try await dead.releaseLease(expired)
        #expect(try await dead.acquireLease(on: "k", ttl: .seconds(30)) == nil)
    }

    @Test func aDamagedLeaseObjectIsTakenOver() async throws {
        let prefix = Self.prefix()
        let tier = try tier(prefix: prefix)
        _ = try await server.client().put(
            tier.leaseObjectKey(for: "k"), data: Data("garbage".utf8), deadline: .now + .seconds(10))
        #expect(try await tier.acquireLease(on: "k", ttl: .seconds(30)) != nil)
    }
}
