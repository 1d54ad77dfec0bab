import Foundation
import Testing
import TroveCore

@testable import TroveRedis

@Suite struct RedisURLTests {
    @Test func parsesEveryPart() throws {
        let configuration = try RedisConfiguration(
            url: URL(string: "redis://app%20user:p%40ss%3Aw0rd@cache.local:6380/3")!)
        #expect(
            configuration
                == RedisConfiguration(
                    host: "cache.local", port: 6380, user: "app user",
                    password: "p@ss:w0rd", database: 3))
    }

    @Test func defaultsPortAndDatabase() throws {
        #expect(
            try RedisConfiguration(url: URL(string: "redis://localhost")!)
                == RedisConfiguration(host: "localhost", port: 6379, user: nil, password: nil, database: 0))
        #expect(try RedisConfiguration(url: URL(string: "redis://localhost/")!).database == 0)
    }

    @Test func aPasswordWithoutAUserLogsInAsDefault() throws {
        let configuration = try RedisConfiguration(url: URL(string: "redis://:secret@127.0.0.1")!)
        #expect(configuration.user == nil)
        #expect(configuration.password == "secret")
        #expect(configuration.description == "redis://:***@127.0.0.1:6379/0")
    }

    @Test func theDescriptionHidesThePassword() throws {
        let configuration = try RedisConfiguration(url: URL(string: "redis://u:hunter2@[::1]:7000/2")!)
        #expect(configuration.host == "::1")
        #expect(configuration.description == "redis://u:***@[::1]:7000/2")
        #expect(!configuration.description.contains("hunter2"))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(dumped.contains("***") && !dumped.contains("hunter2"))
        #expect(!String(reflecting: configuration).contains("hunter2"))
    }

    @Test(arguments: [
        ("http://localhost", "has scheme 'http', not redis"),
        ("rediss://localhost", "has scheme 'rediss', not redis"),
        ("redis:///0", "has no host"),
        ("redis://localhost:0", "outside 1...65535"),
        ("redis://localhost/abc", "the path may only be a database number"),
        ("redis://localhost/1/2", "the path may only be a database number"),
        ("redis://localhost/-1", "the path may only be a database number"),
        ("redis://localhost?db=1", "has a query"),
        ("redis://localhost#x", "has a fragment"),
        ("redis://someone@localhost", "names user 'someone' without a password")
    ])
    func rejectsBadURLs(_ text: String, _ expected: String) throws {
        let url = try #require(URL(string: text))
        let error = #expect(throws: TroveError.self) { try RedisConfiguration(url: url) }
        guard case let .invalidConfiguration(message)? = error else {
            Issue.record("expected invalidConfiguration, got \(String(describing: error))")
            return
        }
        #expect(message.contains(expected), "\(message)")
        #expect(message.contains("expected redis://[user:password@]host[:port][/db]"))
    }

    @Test func errorsNeverEchoThePassword() throws {
        let url = try #require(URL(string: "redis://user:topsecret@localhost/notadb"))
        let error = #expect(throws: TroveError.self) { try RedisConfiguration(url: url) }
        #expect(error.map { !$0.description.contains("topsecret") } == true)
        #expect(error?.description.contains("user:***@localhost") == true)
    }

    @Test func theFactoryRejectsUnusableOptions() throws {
        let url = try #require(URL(string: "redis://localhost"))
        #expect(throws: TroveError.self) {
            try RedisTierFactory().makeTier(url: url, options: SharedTierOptions(connections: 0))
        }
        #expect(throws: TroveError.self) {
            try RedisTierFactory().makeTier(url: url, options: SharedTierOptions(commandTimeout: .zero))
        }
    }

    @Test func thePluginRegistersTheFactoryForRedisURLs() throws {
        var registry = PluginRegistry()
        try registry.install(TroveRedisPlugin())
        #expect(registry.installedPlugins.contains(PluginInfo(name: "redis", version: "1.0.0")))
        let factory = try registry.sharedTier(for: URL(string: "redis://localhost:6379/0")!)
        #expect(factory.name == "redis")
        #expect(factory.schemes == ["redis"])
    }

    @Test func ttlsRoundUpToWholeMilliseconds() {
        #expect(RedisSharedTier.milliseconds(.milliseconds(200)) == 200)
        #expect(RedisSharedTier.milliseconds(.microseconds(1500)) == 2)
        #expect(RedisSharedTier.milliseconds(.seconds(3)) == 3000)
        #expect(RedisSharedTier.milliseconds(.zero) == 1)
        #expect(RedisSharedTier.milliseconds(.seconds(-1)) == 1)
    }
}
