import FixtureServer
import Foundation
import Testing
import Trove
import TroveJPEG
import TroveTestSupport
import TroveWebP

/// RFC 9111 §4.1: a response that says `Vary` answers only requests that send what the request that got it
/// sent, and several variants of one URL are kept at once.
@Suite struct HTTPVaryTests {
    static func varying(_ bodies: [String], on names: String = "Foo") -> FixtureServer.Route {
        .sequence(bodies.map { textRoute($0, [("Cache-Control", "max-age=3600"), ("Vary", names)]) })
    }

    @Test func eachVariantAnswersOnlyTheRequestsThatMatchIt() async throws {
        try await withServerAndCache(["/v": Self.varying(["one", "two", "none"])]) { server, dir in
            let url = server.url("/v")
            let first = try await fetchOnce(url, in: dir, headers: ["Foo": "1"])
            #expect(first.text == "one" && first.source == .network)
            #expect(try await fetchOnce(url, in: dir, headers: ["foo": "1", "Other": "x"]).source == .disk)
            // Another value, and no value at all, are other variants: the origin is asked.
            let two = try await fetchOnce(url, in: dir, headers: ["Foo": "2"])
            #expect(two.text == "two" && two.source == .network)
            let none = try await fetchOnce(url, in: dir)
            #expect(none.text == "none" && none.source == .network)
            // All three stay: each answers its own requests from disk.
            for (headers, text) in [(["Foo": "1"], "one"), (["Foo": "2"], "two"), ([:], "none")] {
                let again = try await fetchOnce(url, in: dir, headers: headers)
                #expect(again.text == text && again.source == .disk)
            }
            #expect(server.requestCount(for: "/v") == 3)
        }
    }

    @Test func twoAndThreeFieldsMatchAsAWholeInAnyOrder() async throws {
        try await withServerAndCache(["/v": Self.varying(["first", "second"], on: "Foo, Bar, Baz")]) { server, dir in
            let url = server.url("/v")
            _ = try await fetchOnce(url, in: dir, headers: ["Foo": "1", "Bar": "abc4", "Baz": "789"])
            let other = try await fetchOnce(url, in: dir, headers: ["Foo": "1", "Bar": "abc", "Baz": "789"])
            #expect(other.text == "second" && other.source == .network)
            let same = try await fetchOnce(url, in: dir, headers: ["Baz": "789", "Bar": "abc4", "Foo": "1"])
            #expect(same.text == "first" && same.source == .disk)
        }
    }

    @Test(arguments: ["*", "Foo, *", ", *"])
    func varyStarIsNeverReused(vary: String) async throws {
        try await withServerAndCache([
            "/v": .sequence([textRoute("a", [("Cache-Control", "max-age=3600"), ("Vary", vary)]), textRoute("b", [])])
        ]) { server, dir in
            let url = server.url("/v")
            #expect(try await fetchOnce(url, in: dir, headers: ["Foo": "1"]).text == "a")
            let second = try await fetchOnce(url, in: dir, headers: ["Foo": "1"])
            #expect(second.text == "b" && second.source == .network)
        }
    }

    @Test func selectingValuesAreComparedNormalised() async throws {
        try await withServerAndCache(["/v": Self.varying(["a", "b"])]) { server, dir in
            let url = server.url("/v")
            _ = try await fetchOnce(url, in: dir, headers: ["Foo": "1,2"])
            #expect(try await fetchOnce(url, in: dir, headers: ["Foo": " 1, 2 "]).source == .disk)
            #expect(server.requestCount(for: "/v") == 1)
        }
    }

    @Test func memoryNeverServesAVariantToARequestItDoesNotMatch() async throws {
        try await withServerAndCache(["/v": Self.varying(["one", "two"])]) { server, dir in
            let pipeline = try makeDataPipeline(dir)
            let url = server.url("/v")
            #expect(try await pipeline.data(for: DataRequest(url: url, headers: ["Foo": "1"])).text == "one")
            let two = try await pipeline.data(for: DataRequest(url: url, headers: ["Foo": "2"]))
            #expect(two.text == "two" && two.source == .network)
            // Memory holds "two" under the URL's key now; a request for Foo: 1 gets its own variant from disk.
            let one = try await pipeline.data(for: DataRequest(url: url, headers: ["Foo": "1"]))
            #expect(one.text == "one" && one.source == .disk)
            #expect(try await pipeline.data(for: DataRequest(url: url, headers: ["Foo": "1"])).source == .memory)
            #expect(server.requestCount(for: "/v") == 2)
            await pipeline.flush()
        }
    }

    @Test func aResponseWithoutVaryReplacesTheVariants() async throws {
        try await withServerAndCache([
            "/v": .sequence([Self.varying(["one"]), textRoute("plain", [("Cache-Control", "max-age=3600")])])
        ]) { server, dir in
            let url = server.url("/v")
            _ = try await fetchOnce(url, in: dir, headers: ["Foo": "1"])
            _ = try await fetchOnce(url, in: dir, headers: ["Foo": "1"], policy: .reloadIgnoringCache)
            for headers in [["Foo": "1"], ["Foo": "2"], [:]] {
                let again = try await fetchOnce(url, in: dir, headers: headers)
                #expect(again.text == "plain" && again.source == .disk)
            }
            #expect(server.requestCount(for: "/v") == 2)
        }
    }

    /// A data pipeline loads through an image pipeline built to stop at the bytes: it sends no `Accept` of
    /// decodable formats (the origin's default answers), and keeps bytes no decoder claims.
    @Test func aDataPipelineSendsNoAcceptOfImagesAndKeepsAnyBytes() async throws {
        let jpeg = try Data(contentsOf: Fixtures.image("rocket.jpg"))
        let negotiated = FixtureServer.Route.withHeaders(
            ["Cache-Control": "max-age=3600"],
            .negotiated(
                header: "Accept", choices: [(containing: "image/", route: .file(jpeg, contentType: "image/jpeg"))],
                otherwise: .file(Data("not an image".utf8), contentType: "text/plain")))
        try await withServerAndCache(["/thing": negotiated]) { server, dir in
            let first = try await fetchOnce(server.url("/thing"), in: dir)
            #expect(first.text == "not an image" && first.source == .network)
            #expect(server.requestLog(for: "/thing").first?.header("accept") == nil)
            let again = try await fetchOnce(server.url("/thing"), in: dir)
            #expect(again.text == "not an image" && again.source == .disk)
            #expect(server.requestCount(for: "/thing") == 1)
        }
    }

    /// An origin that negotiates the format (`Vary: Accept`), as a CDN serving WebP to those who take it
    /// does: each image pipeline sends the formats its decoders read, and gets and keeps its own variant.
    @Test func aNegotiatingOriginGivesEachPipelineItsOwnFormatFromItsOwnEntry() async throws {
        let jpeg = try Data(contentsOf: Fixtures.image("rocket.jpg"))
        let webp = try Data(contentsOf: Fixtures.url("webp/lossy-photo.webp"))
        let negotiated = FixtureServer.Route.withHeaders(
            ["Cache-Control": "max-age=3600"],
            .negotiated(
                header: "Accept", choices: [(containing: "image/webp", route: .file(webp, contentType: "image/webp"))],
                otherwise: .file(jpeg, contentType: "image/jpeg")))
        try await withServerAndCache(["/photo": negotiated]) { server, dir in
            var withWebP = PluginRegistry.standard
            try withWebP.install(TroveJPEGPlugin())
            try withWebP.install(TroveWebPPlugin())
            var jpegOnly = PluginRegistry.standard
            try jpegOnly.install(TroveJPEGPlugin())
            func load(_ registry: PluginRegistry) async throws -> ImageResponse {
                var configuration = PipelineConfiguration(cacheDirectory: dir)
                configuration.retryPolicy = .none
                let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
                let response = try await pipeline.image(for: server.url("/photo"))
                await pipeline.flush()
                return response
            }
            let modern = try await load(withWebP), plain = try await load(jpegOnly)
            #expect(modern.format == .webp && modern.data == webp && modern.source == .network)
            #expect(plain.format == .jpeg && plain.data == jpeg && plain.source == .network)
            let log = server.requestLog(for: "/photo")
            #expect(log.count == 2 && log[0].header("accept")?.contains("image/webp") == true)
            #expect(log[1].header("accept")?.contains("image/webp") == false)
            #expect(log[1].header("accept")?.contains("image/jpeg") == true)
            // Again, each from disk, each its own format: two entries under one URL.
            let modernAgain = try await load(withWebP), plainAgain = try await load(jpegOnly)
            #expect(modernAgain.source == .disk && modernAgain.format == .webp && modernAgain.data == webp)
            #expect(plainAgain.source == .disk && plainAgain.format == .jpeg && plainAgain.data == jpeg)
            #expect(server.requestCount(for: "/photo") == 2)
            // An app's own Accept wins over the pipeline's, and selects by what it says.
            var configuration = PipelineConfiguration(cacheDirectory: dir)
            configuration.retryPolicy = .none
            let pipeline = try ImagePipeline(registry: withWebP, configuration: configuration)
            let asked = try await pipeline.image(
                for: ImageRequest(url: server.url("/photo"), headers: ["accept": "image/jpeg"]))
            #expect(asked.format == .jpeg && asked.source == .network)
            await pipeline.flush()
        }
    }
}
