// swift-format-ignore-file
// (the README and the DocC articles quote this file's regions word for word, spacing included)
import Foundation
import Trove
import TroveAVIF
import TroveWebP

// The README's tour, compiled: each region between `// snippet NAME` and `// end snippet NAME` is a Swift
// block of README.md or of a DocC article, word for word (ReadmeSnippetTests checks that). The functions give the blocks the
// names they use (`url`, `cacheURL`, ...), so a block that no longer compiles fails `make test`.

/// Shows an image; stands for an app's UI in the snippets.
func show(_ image: Image) {}

/// Stands for an app's token store in the snippets.
actor TokenStore {
    func current() async throws -> String { "token" }
}

let tokens = TokenStore()

func loadAnImage() async throws {
    // snippet load-an-image
    let pipeline = try ImagePipeline()  // disk cache in ~/.cache/trove (Linux), ~/Library/Caches/trove (Apple)
    let response = try await pipeline.image(for: URL(string: "https://example.com/cat.png")!)
    print(response.image.width, response.image.height, response.source)  // e.g. 451 300 network

    let elsewhere = try ImagePipeline(configuration: PipelineConfiguration(
        cacheDirectory: URL(fileURLWithPath: "/var/cache/myapp/images")))
    let inMemory = try ImagePipeline(configuration: .memoryOnly)  // nothing written to disk
    // end snippet load-an-image
    _ = (elsewhere, inMemory)
}

func composeAPipeline(cacheURL: URL, imageURL: URL) async throws -> ImageResponse {
    // snippet compose-a-pipeline
    let registry = PluginRegistry.standard          // everything in Modules/
    var configuration = PipelineConfiguration(cacheDirectory: cacheURL)
    configuration.hasher = .md5                     // typed names; a plugin's is a string literal: "djb2"
    configuration.memoryEviction = .s3fifo
    configuration.compressor = .zlib                // compress disk entries when it helps
    configuration.disk.byteLimit = 200 << 20
    let pipeline = try ImagePipeline(registry: registry, configuration: configuration)

    let thumbnail = ImageRequest(
        url: imageURL,
        transforms: try registry.transformers(forSpec: "resize:w=200,h=200,mode=fit,filter=bilinear"),
        cachePolicy: .useCache)                      // also .reloadIgnoringCache, .cacheOnly, .memoryOnly
    let result = try await pipeline.image(for: thumbnail)
    // end snippet compose-a-pipeline
    return result
}

func followARequest(pipeline: ImagePipeline, url: URL) async throws {
    // snippet follow-a-request
    let task = pipeline.task(for: ImageRequest(url: url, cachePolicy: .refresh, options: .deliversPreviews))
    task.setPriority(.high)                       // while it waits for a fetch slot
    for try await event in task.events {
        switch event {
        case let .progress(p): print("\(p.received) of \(p.expected ?? -1) bytes")
        case let .preview(partial): show(partial.image) // JPEG scans, PNG passes, else rows so far
        case let .cached(old): show(old.image)    // refresh: what the cache had, at once
        case let .final(new): show(new.image)     // after If-None-Match / If-Modified-Since: 304 keeps it, 200 replaces it
        }
    }
    // end snippet follow-a-request
}

func formats(photoURL: URL) throws -> ImageRequest {
    // snippet formats
    var registry = PluginRegistry.standard                  // png and gif in, png out
    try registry.install(TroveWebPPlugin())                 // webp in and out, animations too
    try registry.install(TroveAVIFPlugin())                 // avif in and out, 8-12 bit, sequences
    let thumbnail = ImageRequest(url: photoURL,
                                 transforms: try registry.transformers(forSpec: "resize:w=320,h=320,mode=fit"),
                                 outputFormat: .webp)       // any format a registered encoder writes
    // end snippet formats
    return thumbnail
}

func plainDataPrefetchingHooks(configuration: PipelineConfiguration, pipeline: ImagePipeline,
                               urls: [URL]) async throws -> (DataResponse, PrefetchSummary) {
    var configuration = configuration
    // snippet data-prefetch-hooks
    let api = try DataPipeline(configuration: configuration)      // same caches and policies, no decoding
    let users = try await api.data(for: URL(string: "https://example.com/users.json")!)

    let summary = await Prefetcher(pipeline: pipeline).prefetch(urls) { progress in
        print("\(progress.done)/\(progress.total)")
    }                                                              // total, fetched, cached, failed
    // Bytes only, no decoding (memory stays flat); a URL fresh on disk is answered from the index.
    // destination: .memory decodes into the memory cache too; Prefetcher(pipeline: api) warms plain data.

    struct Auth: PipelineDelegate {                                // every hook has a default
        func prepare(_ request: FetchRequest) async throws -> FetchRequest {
            var request = request
            request.headers["Authorization"] = "Bearer \(try await tokens.current())"
            return request
        }
    }
    configuration.delegate = Auth()
    // end snippet data-prefetch-hooks
    _ = configuration
    return (users, summary)
}

func registerAPlugin(cacheURL: URL, url: URL) async throws -> ImageResponse {
    // snippet plugin-usage
    var registry = PluginRegistry.standard
    try registry.install(ExamplePlugin())
    var configuration = PipelineConfiguration(cacheDirectory: cacheURL)
    configuration.hasher = "djb2"
    let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
    let inverted = try await pipeline.image(for: ImageRequest(url: url, transforms: [Invert()]))
    // end snippet plugin-usage
    return inverted
}
