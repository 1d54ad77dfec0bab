import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveRedis

@Suite struct RedisAuthTests {
    @Test func logsInWithThePassword() async throws {
        try await withRedisServer(password: "s3cret/with:odd@chars") { server in
            try await withTier(server.url(password: "s3cret/with:odd@chars")) { tier in
                try await tier.set("k", value: Data("v".utf8), ttl: .seconds(60))
                #expect(try await tier.get("k") == Data("v".utf8))
            }
        }
    }

    @Test func logsInAsAnACLUser() async throws {
        try await withRedisServer(password: "admin-pass") { server in
            let admin = server.adminClient()
            let created = try await admin.send(["ACL", "SETUSER", "trove", "on", ">user pass", "~trove:*", "+@all"])
            #expect(created == .simpleString("OK"))
            await admin.shutdown()
            try await withTier(server.url(user: "trove", password: "user pass")) { tier in
                try await tier.set("k", value: Data("by trove".utf8), ttl: .seconds(60))
                #expect(try await tier.get("k") == Data("by trove".utf8))
                let whoami = try await tier.client.send("ACL", "WHOAMI")
                #expect(whoami.string == "trove")
            }
        }
    }

    @Test func databasesAreIsolated() async throws {
        try await withRedisServer { server in
            try await withTier(server.url(database: 0)) { zero in
                try await withTier(server.url(database: 1)) { one in
                    try await zero.set("same", value: Data("in db 0".utf8), ttl: .seconds(60))
                    try await one.set("same", value: Data("in db 1".utf8), ttl: .seconds(60))
                    #expect(try await zero.get("same") == Data("in db 0".utf8))
                    #expect(try await one.get("same") == Data("in db 1".utf8))
                    try await one.delete("same")
                    #expect(try await zero.get("same") == Data("in db 0".utf8))
                    #expect(try await one.get("same") == nil)
                }
            }
        }
    }

    @Test func aWrongPasswordFailsFastAsAConfigurationError() async throws {
        try await withRedisServer(password: "right") { server in
            try await withTier(server.url(password: "wrong-and-secret")) { tier in
                for _ in 0..<3 {
                    let start = ContinuousClock.now
                    let error = await #expect(throws: TroveError.self) { _ = try await tier.get("k") }
                    #expect(ContinuousClock.now - start < .seconds(2))
                    guard case let .invalidConfiguration(message)? = error else {
                        Issue.record("expected invalidConfiguration, got \(String(describing: error))")
                        return
                    }
                    #expect(message.contains("authentication failed for 127.0.0.1:\(server.port) as default"))
                    #expect(message.contains("check the password"))
                    #expect(!message.contains("wrong-and-secret"))
                }
                #expect(tier.statistics().errors == 3)
            }
        }
    }

    @Test func aWrongACLPasswordNamesTheUser() async throws {
        try await withRedisServer { server in
            try await withTier(server.url(user: "nobody", password: "nope")) { tier in
                let error = await #expect(throws: TroveError.self) {
                    try await tier.set("k", value: Data(), ttl: .seconds(1))
                }
                guard case let .invalidConfiguration(message)? = error else {
                    Issue.record("expected invalidConfiguration, got \(String(describing: error))")
                    return
                }
                #expect(message.contains("authentication failed"))
                #expect(message.contains("as nobody"))
                #expect(!message.contains("nope"))
            }
        }
    }

    @Test func aMissingPasswordIsAConfigurationErrorNotAMiss() async throws {
        try await withRedisServer(password: "required") { server in
            try await withTier(server.url()) { tier in
                let error = await #expect(throws: TroveError.self) { _ = try await tier.get("k") }
                guard case let .invalidConfiguration(message)? = error else {
                    Issue.record("expected invalidConfiguration, got \(String(describing: error))")
                    return
                }
                #expect(message.contains("authentication failed"))
                #expect(message.contains("NOAUTH"))
            }
        }
    }

    @Test func aDatabaseOutOfRangeIsAConfigurationError() async throws {
        try await withRedisServer { server in
            try await withTier(server.url(database: 5000)) { tier in
                let error = await #expect(throws: TroveError.self) { _ = try await tier.get("k") }
                guard case let .invalidConfiguration(message)? = error else {
                    Issue.record("expected invalidConfiguration, got \(String(describing: error))")
                    return
                }
                #expect(message.contains("SELECT 5000"))
            }
        }
    }
}
