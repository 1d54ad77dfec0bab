import Foundation
import Testing
import TroveCore

/// A decoder that claims bytes starting with `magic` and decodes them to a 1x1 image whose red value says
/// which decoder ran.
private struct MarkerDecoder: ImageDecoder {
    let name: String
    let format: ImageFormat
    let magic: String
    let marker: UInt8
    func canDecode(_ header: Data) -> Bool { header.starts(with: magic.utf8) }
    func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        Image(width: 1, height: 1, pixels: [marker, 0, 0, 255], sourceFormat: format)
    }
}

private struct MarkerEncoder: ImageEncoder {
    let name: String
    let format: ImageFormat
    func encode(_ image: Image, options: EncodingOptions) throws -> Data { Data(name.utf8) }
}

private struct SchemeFetcher: Fetcher {
    let name: String
    let schemes: Set<String>
    func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        .data(Data(name.utf8), ResponseMetadata(url: request.url))
    }
}

/// A plugin whose two decoders both claim one format: the install must fail as a whole.
private struct TwoClaimsPlugin: TrovePlugin {
    let name = "two-claims"
    let version = "1.0"
    func register(into registry: inout PluginRegistry) throws {
        try registry.register(hasher: NoopHasher())
        try registry.register(decoder: MarkerDecoder(name: "zz-a", format: "zz", magic: "ZZ", marker: 1))
        try registry.register(decoder: MarkerDecoder(name: "zz-b", format: "zz", magic: "ZZ", marker: 2))
    }
}

private struct TwoSchemesPlugin: TrovePlugin {
    let name = "two-schemes"
    let version = "1.0"
    func register(into registry: inout PluginRegistry) throws {
        try registry.register(fetcher: SchemeFetcher(name: "one", schemes: ["s3", "gs"]))
        try registry.register(fetcher: SchemeFetcher(name: "two", schemes: ["s3"]))
    }
}

private struct NoopHasher: KeyHasher {
    let name = "noop"
    func hash(_ key: String) -> String { "00" }
}

@Suite struct PluginPrecedenceTests {
    @Test func theLatestDecoderToRecogniseTheBytesWins() throws {
        var registry = PluginRegistry()
        // Names chosen so that sorting by name would pick the other one.
        try registry.register(decoder: MarkerDecoder(name: "b-builtin", format: "zz", magic: "ZZ", marker: 1))
        try registry.register(decoder: MarkerDecoder(name: "a-override", format: "zz", magic: "ZZ", marker: 2))
        let data = Data("ZZ-payload".utf8)
        #expect(registry.decoder(for: data)?.name == "a-override")
        #expect(try registry.decoder(for: data)?.decode(data, limits: .default).pixels[0] == 2)
        #expect(try registry.decoder(for: "zz" as ImageFormat).name == "a-override")
        #expect(registry.format(of: data) == "zz")
        #expect(registry.decoder(for: Data("nope".utf8)) == nil)
    }

    @Test func replacingByNameMakesTheReplacementTheLatest() throws {
        var registry = PluginRegistry()
        try registry.register(decoder: MarkerDecoder(name: "first", format: "zz", magic: "ZZ", marker: 1))
        try registry.register(decoder: MarkerDecoder(name: "second", format: "zz", magic: "ZZ", marker: 2))
        try registry.register(
            decoder: MarkerDecoder(name: "first", format: "zz", magic: "ZZ", marker: 3),
            replacing: true)
        #expect(try registry.decoder(for: Data("ZZ".utf8))?.decode(Data(), limits: .default).pixels[0] == 3)
    }

    @Test func theLatestEncoderAndFetcherWin() throws {
        var registry = PluginRegistry()
        try registry.register(encoder: MarkerEncoder(name: "z-old", format: .png))
        try registry.register(encoder: MarkerEncoder(name: "a-new", format: .png))
        #expect(try registry.encoder(for: .png).name == "a-new")
        try registry.register(fetcher: SchemeFetcher(name: "z-http", schemes: ["http"]))
        try registry.register(fetcher: SchemeFetcher(name: "a-http", schemes: ["http"]))
        #expect(try registry.fetcher(for: URL(string: "http://x/")!).name == "a-http")
    }

    @Test func twoClaimsOnOneFormatInsideOneInstallAreAnError() throws {
        var registry = PluginRegistry()
        let error = #expect(throws: TroveError.self) { try registry.install(TwoClaimsPlugin()) }
        #expect(error?.description.contains("'two-claims' registers two decoders for format 'zz'") == true)
        #expect(error?.description.contains("'zz-a'") == true && error?.description.contains("'zz-b'") == true)
        // All or nothing: even the hasher it registered first is gone.
        #expect(registry.names(of: .hasher).isEmpty && registry.names(of: .decoder).isEmpty)
        #expect(registry.installedPlugins.isEmpty)
    }

    @Test func twoClaimsOnOneSchemeInsideOneInstallAreAnError() throws {
        var registry = PluginRegistry()
        let error = #expect(throws: TroveError.self) { try registry.install(TwoSchemesPlugin()) }
        #expect(error?.description.contains("two fetchers for scheme 's3'") == true)
        #expect(registry.names(of: .fetcher).isEmpty)
    }

    @Test func aPluginMayOverrideWhatWasRegisteredBeforeIt() throws {
        struct Override: TrovePlugin {
            let name = "override"
            let version = "1.0"
            func register(into registry: inout PluginRegistry) throws {
                try registry.register(decoder: MarkerDecoder(name: "mine", format: "zz", magic: "ZZ", marker: 9))
            }
        }
        var registry = PluginRegistry()
        try registry.register(decoder: MarkerDecoder(name: "builtin", format: "zz", magic: "ZZ", marker: 1))
        try registry.install(Override())
        #expect(registry.decoder(for: Data("ZZ".utf8))?.name == "mine")
    }

    @Test func routingSaysWhichPluginServesEachFormatAndScheme() throws {
        var registry = PluginRegistry()
        try registry.register(decoder: MarkerDecoder(name: "zz-dec", format: "zz", magic: "ZZ", marker: 1))
        try registry.register(encoder: MarkerEncoder(name: "zz-enc", format: "zz"))
        try registry.register(encoder: MarkerEncoder(name: "yy-enc", format: "yy"))
        try registry.register(fetcher: SchemeFetcher(name: "web", schemes: ["http", "https"]))
        let routing = registry.routing
        #expect(routing.formats["zz"] == .init(decoder: "zz-dec", encoder: "zz-enc"))
        #expect(routing.formats["yy"] == .init(decoder: nil, encoder: "yy-enc"))
        #expect(routing.schemes["https"] == .init(fetcher: "web", sharedTier: nil))
        #expect(registry.encodableFormats == ["yy", "zz"])
        #expect(registry.decodableFormats == ["zz"])
    }
}
