// swift-format-ignore-file
// (the README and the DocC articles quote this file's regions word for word, spacing included)
import Foundation
import Trove
import TroveJPEG

// The DocC articles' Swift blocks (Modules/Trove/Trove.docc), compiled; ReadmeSnippetTests checks the
// articles quote these regions word for word.

func gettingStarted(cacheURL: URL, url: URL) async throws -> ImageResponse {
    // snippet getting-started-load
    let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: cacheURL))
    let response = try await pipeline.image(for: url)
    print(response.image.width, response.image.height, response.source)  // network, then memory
    // end snippet getting-started-load

    // snippet getting-started-thumbnail
    let registry = PluginRegistry.standard
    let request = ImageRequest(url: url,
                               transforms: try registry.transformers(forSpec: "resize:w=200,h=200,mode=fill"))
    let thumbnail = try await pipeline.image(for: request)
    print(thumbnail.image.width, thumbnail.format)  // 200 png
    // end snippet getting-started-thumbnail
    return response
}

func compose(cacheURL: URL) throws -> ImagePipeline {
    // snippet compose
    var registry = PluginRegistry.standard
    try registry.install(TroveJPEGPlugin())
    var configuration = PipelineConfiguration(cacheDirectory: cacheURL)
    configuration.hasher = "sha256"            // or "md5"
    configuration.memoryEviction = "s3fifo"    // lru, fifo, lfu, sieve, s3fifo, wtinylfu
    configuration.diskEviction = "lru"
    configuration.compressor = "zlib"          // compress disk entries when it saves space
    configuration.disk.byteLimit = 1 << 30
    configuration.scheduler.maxConcurrent = 4
    let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
    // end snippet compose
    return pipeline
}

func freshness(cacheURL: URL, url: URL) async throws {
    // snippet freshness
    var configuration = PipelineConfiguration(cacheDirectory: cacheURL)
    configuration.defaultFreshness = .seconds(3600)       // for responses that say nothing
    configuration.staleIfErrorBound = .seconds(24 * 3600)
    let pipeline = try ImagePipeline(configuration: configuration)
    let recent = ImageRequest(url: url, maxAge: .seconds(60))  // this request: at most a minute old
    let response = try await pipeline.image(for: recent)
    print(response.source, response.isStale)
    // end snippet freshness
}

// ComposingAPipeline.md names `configuration.cookieStore = CookieJar()` in its prose: an app that imports
// only Trove must be able to write it.
func cookies() -> PipelineConfiguration {
    var configuration = PipelineConfiguration.memoryOnly
    configuration.cookieStore = CookieJar()
    return configuration
}
