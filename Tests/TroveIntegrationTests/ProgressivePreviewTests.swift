import FixtureServer
import Foundation
import Testing
import Trove
import TroveCodec
import TroveJPEG
import TroveTestSupport

/// Previews while a progressive JPEG or an interlaced PNG arrives slowly from a loopback server.
@Suite struct ProgressivePreviewTests {
    /// The events of one request, split into previews and the final response, with everything in order.
    struct Seen {
        var previews: [ImageResponse] = []
        var final: ImageResponse?
        var previewAfterFinal = false
    }

    static func follow(_ task: ImageTask) async throws -> Seen {
        var events = task.events.makeAsyncIterator()
        return try await follow(&events)
    }

    static func follow(_ events: inout AsyncThrowingStream<ImageEvent, any Error>.Iterator) async throws -> Seen {
        var seen = Seen()
        while let event = try await events.next() {
            switch event {
            case let .preview(preview):
                if seen.final != nil { seen.previewAfterFinal = true }
                seen.previews.append(preview)
            case let .final(response): seen.final = response
            case .progress, .cached: break
            }
        }
        return seen
    }

    static func pipeline(_ directory: URL, previewInterval: Duration = .milliseconds(5)) throws -> ImagePipeline {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.retryPolicy = .none
        configuration.previewInterval = previewInterval
        return try ImagePipeline(registry: registry, configuration: configuration)
    }

    /// Serves `data` slowly, follows one request with previews, and checks what the issue promises.
    static func expectPreviews(
        of data: Data, path: String, chunkSize: Int, decoder: any ImageDecoder
    ) async throws {
        try await withServerAndCache([path: .slowBody(data, chunkSize: chunkSize, interval: .milliseconds(30))]) {
            server, directory in
            let pipeline = try pipeline(directory)
            let task = pipeline.task(for: ImageRequest(url: server.url(path), options: .deliversPreviews))
            let seen = try await follow(task)
            let final = try #require(seen.final)
            // The final image is the one-shot decode, pixel for pixel.
            #expect(final.image.pixels == (try decoder.decode(data, limits: .default)).pixels)
            #expect(final.data == data)
            #expect(!seen.previewAfterFinal)
            #expect(seen.previews.count >= 3)
            let quality = seen.previews.map { psnr($0.image, final.image) }
            #expect(zip(quality, quality.dropFirst()).allSatisfy { $0 < $1 }, "PSNR per preview: \(quality)")
            #expect(seen.previews.allSatisfy { $0.data.isEmpty && $0.source == .network })

            // Previews are not cached: the next request is answered from memory, whole, with none.
            let again = try await follow(
                pipeline.task(for: ImageRequest(url: server.url(path), options: .deliversPreviews)))
            #expect(again.previews.isEmpty && again.final?.source == .memory)
            #expect(server.requests.count == 1)
        }
    }

    @Test func aProgressiveJPEGServedSlowlyShowsItsScans() async throws {
        let data = try Data(contentsOf: Fixtures.url("jpeg/progressive.jpg"))
        try await Self.expectPreviews(of: data, path: "/progressive.jpg", chunkSize: 128, decoder: JPEGDecoder())
    }

    @Test func anInterlacedPNGServedSlowlyShowsItsPasses() async throws {
        let data = try pngData("adam7.png")
        try await Self.expectPreviews(of: data, path: "/adam7.png", chunkSize: 1024, decoder: PNGDecoder())
    }

    @Test func aBaselineJPEGServedSlowlyShowsItsRowsSoFar() async throws {
        let data = try pngData("rocket.jpg")
        try await Self.expectPreviews(of: data, path: "/rocket.jpg", chunkSize: 8192, decoder: JPEGDecoder())
    }

    @Test func previewsGoOnlyToTheCoalescedWaitersThatAskedAndCarryTheirTransforms() async throws {
        let data = try pngData("adam7.png")
        try await withServerAndCache(["/a.png": .slowBody(data, chunkSize: 1024, interval: .milliseconds(30))]) {
            server, directory in
            let pipeline = try Self.pipeline(directory)
            let url = server.url("/a.png")
            let registry = PluginRegistry.standard
            let small = ImageRequest(
                url: url, transforms: try registry.transformers(forSpec: "resize:w=80,h=80,mode=fit"),
                options: .deliversPreviews)
            // The fetch starts for the request that asks; the other joins it once bytes are arriving.
            var askedEvents = pipeline.task(for: small).events.makeAsyncIterator()
            var early: [ImageResponse] = []
            while let event = try await askedEvents.next() {
                if case .progress = event { break }
                if case let .preview(preview) = event { early.append(preview) }
            }
            async let silent = Self.follow(pipeline.task(for: ImageRequest(url: url)))
            var withPreviews = try await Self.follow(&askedEvents)
            withPreviews.previews = early + withPreviews.previews
            let without = try await silent
            #expect(server.requests.count == 1)
            #expect(without.previews.isEmpty && without.final?.image.width == 160)
            #expect(withPreviews.previews.count >= 3)
            let final = try #require(withPreviews.final)
            #expect(
                withPreviews.previews.allSatisfy {
                    $0.image.width == final.image.width && $0.image.height == final.image.height
                })
            #expect(final.image.width == 80)
        }
    }

    @Test func previewsAreThrottledByThePreviewInterval() async throws {
        let data = try Data(contentsOf: Fixtures.url("jpeg/progressive.jpg"))
        try await withServerAndCache(["/p.jpg": .slowBody(data, chunkSize: 128, interval: .milliseconds(30))]) {
            server, directory in
            // The whole download takes under a second: after the first preview, the next may come only
            // after a minute, so there is exactly one.
            let pipeline = try Self.pipeline(directory, previewInterval: .seconds(60))
            let seen = try await Self.follow(
                pipeline.task(for: ImageRequest(url: server.url("/p.jpg"), options: .deliversPreviews)))
            #expect(seen.previews.count == 1)
            #expect(seen.final?.image.width == 160)
        }
    }
}
