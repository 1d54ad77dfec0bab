import Foundation
import Testing
import TroveCore

private struct FixedHasher: KeyHasher {
    let name: String
    func hash(_ key: String) -> String { "00ff" }
}

private struct EchoFetcher: Fetcher {
    let name: String
    let schemes: Set<String>
    func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        .data(Data(name.utf8), ResponseMetadata(url: request.url))
    }
}

private struct Xor: Compressor {
    let name: String
    let id: UInt8
    func compress(_ data: Data, level: Int?) throws -> Data { Data(data.map { $0 ^ 0x5A }) }
    func decompress(_ data: Data, originalLength: Int) throws -> Data { Data(data.map { $0 ^ 0x5A }) }
}

private struct BrokenPlugin: TrovePlugin {
    let name = "broken"
    let version = "1.0"
    func register(into registry: inout PluginRegistry) throws {
        try registry.register(hasher: FixedHasher(name: "fixed"))
        try registry.register(hasher: FixedHasher(name: "fixed"))  // duplicate: the whole install must fail
    }
}

private struct GoodPlugin: TrovePlugin {
    let name = "good"
    let version = "2.1.0"
    func register(into registry: inout PluginRegistry) throws {
        try registry.register(hasher: FixedHasher(name: "fixed"))
        try registry.register(fetcher: EchoFetcher(name: "echo", schemes: ["echo"]))
    }
}

@Suite struct PluginRegistryTests {
    @Test func duplicateNameIsAnErrorUnlessReplacing() throws {
        var registry = PluginRegistry()
        try registry.register(hasher: FixedHasher(name: "h"))
        #expect(throws: TroveError.duplicatePlugin(kind: .hasher, name: "h")) {
            try registry.register(hasher: FixedHasher(name: "h"))
        }
        try registry.register(hasher: FixedHasher(name: "h"), replacing: true)
        #expect(registry.names(of: .hasher) == ["h"])
        #expect(TroveError.duplicatePlugin(kind: .hasher, name: "h").description.contains("replacing: true"))
    }

    @Test func unknownNameListsTheKnownOnes() throws {
        var registry = PluginRegistry()
        try registry.register(hasher: FixedHasher(name: "sha256"))
        try registry.register(hasher: FixedHasher(name: "md5"))
        let error = #expect(throws: TroveError.self) { try registry.hasher(named: "sha3") }
        #expect(error == .unknownPlugin(kind: .hasher, name: "sha3", known: ["md5", "sha256"]))
        #expect(error?.description == "unknown hasher 'sha3'; known: md5, sha256")
    }

    @Test func installIsAllOrNothing() throws {
        var registry = PluginRegistry()
        #expect(throws: TroveError.duplicatePlugin(kind: .hasher, name: "fixed")) {
            try registry.install(BrokenPlugin())
        }
        #expect(registry.names(of: .hasher).isEmpty)
        #expect(registry.installedPlugins.isEmpty)

        try registry.install(GoodPlugin())
        #expect(registry.names(of: .hasher) == ["fixed"])
        #expect(registry.installedPlugins == [PluginInfo(name: "good", version: "2.1.0")])
        #expect(try registry.fetcher(for: URL(string: "ECHO://x")!).name == "echo")
    }

    @Test func fetcherByScheme() async throws {
        var registry = PluginRegistry()
        try registry.register(fetcher: EchoFetcher(name: "web", schemes: ["http", "https"]))
        try registry.register(fetcher: EchoFetcher(name: "disk", schemes: ["file"]))
        let fetcher = try registry.fetcher(for: URL(string: "https://a/b")!)
        guard case let .data(data, _) = try await fetcher.fetch(FetchRequest(url: URL(string: "https://a/b")!)) else {
            Issue.record("expected data"); return
        }
        #expect(String(decoding: data, as: UTF8.self) == "web")
        #expect(throws: TroveError.unsupportedScheme(url: "ftp://a/b", known: ["file", "http", "https"])) {
            try registry.fetcher(for: URL(string: "ftp://a/b")!)
        }
    }

    @Test func compressorIDsMustBeUnique() throws {
        var registry = PluginRegistry()
        try registry.register(compressor: NoCompressor())
        try registry.register(compressor: Xor(name: "xor", id: 9))
        #expect(registry.compressor(id: 9)?.name == "xor")
        #expect(registry.compressor(id: 0)?.name == "none")
        let error = #expect(throws: TroveError.self) { try registry.register(compressor: Xor(name: "other", id: 9)) }
        #expect(error?.description.contains("already taken by 'xor'") == true)
    }

    @Test func listingCoversEveryKind() throws {
        var registry = PluginRegistry()
        try registry.register(evictionPolicy: NamedPolicyFactory(name: "lru"))
        try registry.register(transformer: "identity") { _ in IdentityTransformer() }
        let listing = registry.listing
        #expect(Set(listing.keys) == Set(PluginKind.allCases))
        #expect(listing[.evictionPolicy] == ["lru"])
        #expect(listing[.transformer] == ["identity"])
        #expect(listing[.decoder] == [])
        #expect(try registry.transformer(named: "identity").identifier == "identity")
    }
}

/// A policy factory that only has a name: the registry never asks it for a policy.
private struct NamedPolicyFactory: EvictionPolicyFactory {
    let name: String
    func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> { QueuePolicy<Key>() }
}

private final class QueuePolicy<Key: Hashable>: EvictionPolicy {
    private var keys: [Key] = []
    var count: Int { keys.count }
    func insert(_ key: Key, cost: Int) { keys.append(key) }
    func access(_ key: Key) {}
    func remove(_ key: Key) { keys.removeAll { $0 == key } }
    func evict() -> Key? { keys.isEmpty ? nil : keys.removeFirst() }
    func removeAll() { keys.removeAll() }
}

private struct IdentityTransformer: ImageTransformer {
    let identifier = "identity"
    func transform(_ image: Image) throws -> Image { image }
}
