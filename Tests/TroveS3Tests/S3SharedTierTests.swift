import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveS3

/// The `s3://` shared tier, made through the plugin as a pipeline makes it, against SeaweedFS.
@Suite(.serialized, .seaweedServer) struct S3SharedTierTests {
    var server: SeaweedTestServer {
        get throws { try #require(SeaweedServerTrait.current) }
    }

    func tier(
        bucket: String? = nil, secret: String? = nil, path: String = "/cache", query: String = "",
        options: SharedTierOptions = SharedTierOptions(connectTimeout: .seconds(2), commandTimeout: .seconds(3))
    ) throws -> S3SharedTier {
        let server = try server
        var registry = PluginRegistry()
        try registry.install(
            TroveS3Plugin(environment: [
                "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": secret ?? server.secretAccessKey
            ]))
        let url = URL(
            string: "s3://\(bucket ?? server.bucket)\(path)?endpoint=\(server.endpoint.absoluteString)\(query)")!
        return try #require(try registry.sharedTier(for: url).makeTier(url: url, options: options) as? S3SharedTier)
    }

    @Test func valuesGoUnderHashedKeysAndComeBackAsGiven() async throws {
        let tier = try tier()
        let key = "https://example.com/a photo.jpg?w=200 \u{1F600}"
        let value = Data((0...255).map(UInt8.init) + SplitMix64.bytes(10_000, seed: 3))
        #expect(try await tier.get(key) == nil)
        try await tier.set(key, value: value, ttl: .seconds(60))
        #expect(try await tier.get(key) == value)

        let objectKey = tier.objectKey(for: key)
        let parts = objectKey.split(separator: "/").map(String.init)
        #expect(parts.count == 4 && parts[0] == "cache")
        #expect(parts[3].count == 64 && parts[3].allSatisfy(\.isHexDigit))
        #expect(parts[1] == String(parts[3].prefix(2)) && parts[2] == String(parts[3].dropFirst(2).prefix(2)))
        // The object is there under that name, byte for byte.
        let raw = try await server.client().getData(objectKey, maxBytes: 1 << 20, deadline: .now + .seconds(10))
        #expect(raw?.data == value)

        try await tier.delete(key)
        try await tier.delete(key)
        #expect(try await tier.get(key) == nil)
        #expect(tier.statistics() == SharedTierStatistics(hits: 1, misses: 2, stores: 1, errors: 0))
    }

    @Test func valuesOverTheLimitAreSkippedAndForeignOnesMissed() async throws {
        let tier = try tier(query: "&max-value-bytes=1000")
        #expect(tier.maxValueBytes == 1000)
        // Without the setting, Redis's 8 MiB is not S3's limit.
        #expect(try self.tier().maxValueBytes == S3TierFactory.defaultMaxValueBytes)
        try await tier.set("big", value: Data(count: 1001), ttl: .seconds(60))
        #expect(tier.statistics().skipped == 1)
        _ = try await tier.client.put(
            tier.objectKey(for: "foreign"), data: Data(count: 5000), deadline: .now + .seconds(5))
        #expect(try await tier.get("foreign") == nil)
        #expect(try await tier.get("big") == nil)
        #expect(tier.statistics().misses == 2)
    }

    @Test func refusedCredentialsAndMissingBucketsAreConfigurationErrors() async throws {
        let wrong = "wrong-\(UUID().uuidString)"
        await #expect {
            try await self.tier(secret: wrong).get("k")
        } throws: { error in
            guard case let TroveError.invalidConfiguration(message) = error else { return false }
            return message.contains("check AWS_SECRET_ACCESS_KEY") && !message.contains(wrong)
        }
        await #expect {
            try await self.tier(bucket: "absent-bucket").set("k", value: Data("v".utf8), ttl: .seconds(1))
        } throws: { error in
            guard case let TroveError.invalidConfiguration(message) = error else { return false }
            return message.contains("bucket absent-bucket does not exist")
        }
    }

    @Test func aShutTierAnswersUnavailable() async throws {
        let tier = try tier()
        await tier.shutdown()
        func isUnavailable(_ error: any Error) -> Bool {
            guard case TroveError.sharedTierUnavailable = error else { return false }
            return true
        }
        await #expect(performing: { try await tier.get("k") }, throws: isUnavailable)
        await #expect(performing: { try await tier.acquireLease(on: "k", ttl: .seconds(5)) }, throws: isUnavailable)
    }
}

/// An S3 tier whose server is gone, and URLs that cannot work.
@Suite struct S3SharedTierConfigurationTests {
    static let environment = ["AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "secret-value"]

    static func location(_ url: String, environment: [String: String] = environment) throws -> S3TierLocation {
        try S3TierLocation(url: URL(string: url)!, environment: environment)
    }

    @Test func urlsNameBucketPrefixEndpointAndAddressing() throws {
        let aws = try Self.location("s3://photos", environment: ["AWS_REGION": "eu-west-1"])
        #expect(aws.bucket == "photos" && aws.prefix == "trove" && aws.region == "eu-west-1")
        #expect(aws.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com" && aws.addressing == .virtualHost)
        let local = try Self.location("s3://b/a/b/?endpoint=http://127.0.0.1:8333&region=local")
        #expect(local.prefix == "a/b" && local.region == "local" && local.addressing == .path)
        #expect(local.endpoint.absoluteString == "http://127.0.0.1:8333")
        #expect(try Self.location("s3://b?addressing=virtual-host&endpoint=https://h").addressing == .virtualHost)
    }

    @Test func badURLsAndMissingCredentialsSayWhatIsWrong() {
        func message(_ url: String, environment: [String: String] = Self.environment) -> String {
            do {
                _ = try S3TierFactory(environment: environment).makeTier(
                    url: URL(string: url)!, options: SharedTierOptions())
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(message("s3:///path").contains("names no bucket"))
        #expect(message("s3://b?colour=blue").contains("unknown or empty setting 'colour'"))
        #expect(message("s3://key:secret@b").contains("has credentials in it"))
        #expect(message("s3://b?addressing=sideways").contains("not path or virtual-host"))
        #expect(message("s3://b?max-value-bytes=lots").contains("not a byte count"))
        #expect(message("s3://b?endpoint=ftp://h").contains("is not http(s)://host[:port]"))
        let noCredentials = message("s3://b", environment: ["HOME": "/nonexistent"])
        #expect(noCredentials.contains("AWS_ACCESS_KEY_ID"), "\(noCredentials)")
        #expect(message("s3://b?endpoint=http://127.0.0.1:1") == "accepted")
    }

    @Test func aStoppedServerIsAnOutageWithinTheCallsTimeouts() async throws {
        let server = try await SeaweedTestServer.start()
        let url = URL(string: "s3://\(server.bucket)?endpoint=\(server.endpoint.absoluteString)")!
        let tier = try S3TierFactory(environment: [
            "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": server.secretAccessKey
        ]).makeS3Tier(
            url: url, options: SharedTierOptions(connectTimeout: .milliseconds(500), commandTimeout: .seconds(1)))
        try await tier.set("k", value: Data("v".utf8), ttl: .seconds(60))
        await server.stop()
        let started = ContinuousClock.now
        await #expect {
            try await tier.get("k")
        } throws: { error in
            // Refused (retried until the next wait would pass the deadline), or on a starved machine the deadline.
            guard case let TroveError.sharedTierUnavailable(reason) = error else { return false }
            return reason.contains("could not reach S3 at \(server.endpoint.absoluteString)")
                || reason.contains("did not finish within its deadline")
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(tier.statistics().errors == 1)
    }
}
