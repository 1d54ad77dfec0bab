import ArgumentParser
import FixtureServer
import Foundation
import Trove

/// The offline showcase: serve the fixture images over real HTTP on loopback, then fetch them through
/// a pipeline three times to show network, memory and disk hits, and coalescing.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the offline showcase (what `make demo` runs).")

    @Option(help: "Folder of images to serve.")
    var fixtures = "Tests/Fixtures/images"

    @Option(help: "Where thumbnails and the demo's cache go (cleared first).")
    var output = "demo-output"

    @Option(help: "Transform applied to every image.")
    var transform = "resize:w=160,h=120,mode=fit,filter=bilinear"

    func run() async throws {
        let registry = try TroveRegistry.make()
        let outputURL = URL(fileURLWithPath: output)
        let cacheURL = outputURL.appendingPathComponent("cache")
        try? FileManager.default.removeItem(at: outputURL)
        try FileManager.default.createDirectory(at: outputURL, withIntermediateDirectories: true)

        let server = try FixtureServer(serving: URL(fileURLWithPath: fixtures), under: "/images/")
        try await server.start()
        defer { Task { await server.stop() } }
        let paths = try decodablePaths(in: URL(fileURLWithPath: fixtures), registry: registry)
        guard !paths.isEmpty else {
            throw ValidationError("no decodable images in \(fixtures); pass --fixtures DIR")
        }
        let transforms = try registry.transformers(forSpec: transform)
        let requests = paths.map { ImageRequest(url: server.url($0), transforms: transforms) }
        print("Trove demo: \(paths.count) images served by a real HTTP server at \(server.url("/images/"))")
        print("transform: \(transform)\n")

        var configuration = PipelineConfiguration(cacheDirectory: cacheURL)
        configuration.compressor = "zlib"
        let pipeline = try ImagePipeline(registry: registry, configuration: configuration)

        try await pass("1. first load (network)", requests, pipeline, writeTo: outputURL)
        try await pass("2. same pipeline again (memory)", requests, pipeline, writeTo: nil)
        await pipeline.flush()  // its disk writes are write-behind; the next pipeline reads the directory
        let fresh = try ImagePipeline(registry: registry, configuration: configuration)
        try await pass("3. fresh pipeline, same cache directory (disk)", requests, fresh, writeTo: nil)

        // Coalescing: 20 callers at once for a URL nobody has fetched yet reach the origin once.
        let firstName = String(paths[0].dropFirst("/images/".count))
        let firstData = try Data(contentsOf: URL(fileURLWithPath: fixtures).appendingPathComponent(firstName))
        server.setRoute("/images/coalesced", .delayed(firstData, contentType: "image/png", delay: .milliseconds(200)))
        let slowURL = server.url("/images/coalesced")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = try await fresh.image(for: ImageRequest(url: slowURL)) } }
            try await group.waitForAll()
        }
        print(
            "4. 20 concurrent requests for one new URL -> origin saw \(server.requestCount(for: "/images/coalesced")) request\n"
        )

        await fresh.flush()
        let disk = await fresh.diskCache?.stats()
        let memory = pipeline.memoryCache.stats
        print("origin requests in total: \(server.requests.count) for \(paths.count + 1) distinct URLs")
        if let disk {
            print(
                "disk cache \(cacheURL.path): \(disk.entries) entries, \(disk.bytes) bytes on disk, "
                    + "\(disk.compressed) compressed")
        }
        print(
            "memory cache (first pipeline): \(memory.count) entries, \(memory.totalCost) bytes, "
                + "\(memory.hits) hits, \(memory.misses) misses")
        print("thumbnails written to \(outputURL.path)/")
        #if DEBUG
            // `make demo` shares `make test`'s debug build; its decode and resize run several times slower than release.
            print(
                "\nThese timings come from a debug build (unoptimised). For release-build numbers against "
                    + "libvips, Pillow and NSCache, run `make bench` and scripts/thumbnail-bench.")
        #endif
    }

    private func pass(
        _ title: String, _ requests: [ImageRequest], _ pipeline: ImagePipeline,
        writeTo folder: URL?
    ) async throws {
        print(title)
        print("  source   thumb          ms  url")
        for request in requests {
            let start = ContinuousClock.now
            let response = try await pipeline.image(for: request)
            let ms = (ContinuousClock.now - start).milliseconds
            if let folder {
                let name = (request.url.lastPathComponent as NSString).deletingPathExtension + "-thumb.png"
                try response.data.write(to: folder.appendingPathComponent(name))
            }
            print(
                "  " + response.source.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                    + " "
                    + "\(response.image.width)x\(response.image.height)".padding(
                        toLength: 9, withPad: " ", startingAt: 0)
                    + " " + String(format: "%7.2f", ms) + "  " + request.url.absoluteString)
        }
        print("")
    }

    /// Names of the files in `folder` that the registry can decode, as server paths.
    private func decodablePaths(in folder: URL, registry: PluginRegistry) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().compactMap { name in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)),
                registry.decoder(for: data) != nil
            else { return nil }
            return "/images/" + name
        }
    }
}
