import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveRedis

@Suite struct RedisTierRoundTripTests {
    /// A value of its own length and contents for each key, so a reply handed to the wrong command shows.
    static func distinctValue(_ index: Int) -> Data {
        Data("value \(index) ".utf8) + Data(repeating: UInt8(index % 251), count: index * 37)
    }

    @Test func storesEveryByteValue() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                let value = Data((0...255).map(UInt8.init) + (0...255).reversed().map(UInt8.init))
                try await tier.set("all bytes", value: value, ttl: .seconds(60))
                #expect(try await tier.get("all bytes") == value)
                #expect(tier.statistics() == SharedTierStatistics(hits: 1, misses: 0, stores: 1, errors: 0))
            }
        }
    }

    @Test func anEmptyValueIsAHitNotAMiss() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                try await tier.set("empty", value: Data(), ttl: .seconds(60))
                #expect(try await tier.get("empty") == Data())
                #expect(try await tier.get("never stored") == nil)
                #expect(tier.statistics() == SharedTierStatistics(hits: 1, misses: 1, stores: 1, errors: 0))
            }
        }
    }

    @Test func storesValuesUpToTheLimitAndSkipsLargerOnes() async throws {
        try await withRedisServer { server in
            let options = SharedTierOptions(maxValueBytes: 64 * 1024)
            try await withTier(server.url(), options: options) { tier in
                let atLimit = Data((0..<options.maxValueBytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                try await tier.set("at limit", value: atLimit, ttl: .seconds(60))
                #expect(try await tier.get("at limit") == atLimit)

                let overLimit = atLimit + Data([7])
                try await tier.set("over limit", value: overLimit, ttl: .seconds(60))
                #expect(try await tier.get("over limit") == nil)
                #expect(tier.oversizedValuesSkipped == 1 && tier.statistics().skipped == 1)
                #expect(tier.statistics() == SharedTierStatistics(hits: 1, misses: 1, stores: 1, errors: 0, skipped: 1))
            }
        }
    }

    @Test func keysWithSpacesAndNonASCIIAreStoredUnderThePrefix() async throws {
        try await withRedisServer { server in
            try await withTier(server.url(), options: SharedTierOptions(keyPrefix: "app one:")) { tier in
                let keys = ["a key with spaces", "ключ 🔑 clé", "line\r\nbreak", ""]
                for (index, key) in keys.enumerated() {
                    try await tier.set(key, value: Data("value \(index)".utf8), ttl: .seconds(60))
                }
                for (index, key) in keys.enumerated() {
                    #expect(try await tier.get(key) == Data("value \(index)".utf8), "key \(key.debugDescription)")
                }
                // The server holds exactly these names, prefix included, byte for byte.
                let admin = server.adminClient()
                let raw = try await admin.send(bytes: [Array("GET".utf8), Array("app one:ключ 🔑 clé".utf8)])
                #expect(raw.string == "value 1")
                let listed = try await admin.send("KEYS", "*")
                guard case let .array(names?) = listed else { Issue.record("KEYS gave \(listed)"); return }
                #expect(Set(names.compactMap(\.string)) == Set(keys.map { "app one:" + $0 }))
                await admin.shutdown()
            }
        }
    }

    @Test func deleteRemovesAndMissingKeysAreFine() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                try await tier.set("doomed", value: Data("x".utf8), ttl: .seconds(60))
                try await tier.delete("doomed")
                try await tier.delete("doomed")
                #expect(try await tier.get("doomed") == nil)
            }
        }
    }

    @Test func aShortTTLExpires() async throws {
        try await withRedisServer { server in
            try await withTier(server.url()) { tier in
                try await tier.set("brief", value: Data("soon gone".utf8), ttl: .milliseconds(200))
                try await tier.set("lasting", value: Data("stays".utf8), ttl: .seconds(60))
                let admin = server.adminClient()
                // The TTL went to the server as PX: at most 200 ms left, or already gone (-2), never none (-1).
                let pttl = try await admin.send("PTTL", "trove:brief")
                guard case let .integer(remaining) = pttl else { Issue.record("PTTL gave \(pttl)"); return }
                #expect(remaining == -2 || (remaining > 0 && remaining <= 200))
                let lastingTTL = try await admin.send("PTTL", "trove:lasting")
                guard case let .integer(lasting) = lastingTTL else { Issue.record("PTTL gave \(lastingTTL)"); return }
                #expect(lasting > 0 && lasting <= 60_000)
                await admin.shutdown()
                let gone = try await eventually(within: .seconds(10)) { try await tier.get("brief") == nil }
                #expect(gone)
                #expect(try await tier.get("lasting") == Data("stays".utf8))
            }
        }
    }

    @Test func concurrentCommandsArePipelinedAndEachGetsItsOwnReply() async throws {
        try await withRedisServer { server in
            // Two connections for 200 tasks: many commands are in flight on each before replies arrive.
            try await withTier(server.url(), options: SharedTierOptions(connections: 2)) { tier in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            try await tier.set("key \(index)", value: Self.distinctValue(index), ttl: .seconds(60))
                        }
                    }
                    try await group.waitForAll()
                }
                let mismatches = try await withThrowingTaskGroup(of: Int?.self) { group in
                    for index in 0..<200 {
                        group.addTask { try await tier.get("key \(index)") == Self.distinctValue(index) ? nil : index }
                    }
                    return try await group.reduce(into: [Int]()) { if let bad = $1 { $0.append(bad) } }
                }
                #expect(mismatches.isEmpty)
                #expect(tier.statistics() == SharedTierStatistics(hits: 200, misses: 0, stores: 200, errors: 0))
            }
        }
    }

    @Test func mixedConcurrentGetsAndSetsOnOneConnection() async throws {
        try await withRedisServer { server in
            try await withTier(server.url(), options: SharedTierOptions(connections: 1)) { tier in
                for index in stride(from: 0, to: 200, by: 2) {
                    try await tier.set("k\(index)", value: Data("v\(index)".utf8), ttl: .seconds(60))
                }
                // Even keys are read while odd keys are written, all at once on one connection.
                let wrong = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            if index % 2 == 0 { return try await tier.get("k\(index)") == Data("v\(index)".utf8) }
                            try await tier.set("k\(index)", value: Data("v\(index)".utf8), ttl: .seconds(60))
                            return true
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 0 : 1) }
                }
                #expect(wrong == 0)
                for index in stride(from: 1, to: 200, by: 2) {
                    #expect(try await tier.get("k\(index)") == Data("v\(index)".utf8))
                }
            }
        }
    }

    @Test func theClientAnswersPingAndInfo() async throws {
        try await withRedisServer { server in
            let client = server.adminClient()
            #expect(try await client.send("PING") == .simpleString("PONG"))
            let info = try await client.send("INFO", "server")
            #expect(info.string?.contains("redis_version") == true)
            let echoed = try await client.send(bytes: [Array("ECHO".utf8), [0, 255, 13, 10]])
            #expect(echoed.bytes == [0, 255, 13, 10])
            // A server error reply is a value for the client, not a throw.
            let error = try await client.send("NOSUCHCOMMAND")
            #expect(error.errorMessage?.hasPrefix("ERR") == true)
            await client.shutdown()
        }
    }
}
