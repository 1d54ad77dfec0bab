import Benchmark
import Foundation
import Trove

/// The PNG codecs by their registry names: the codec types themselves are internal to Trove.
private let trovePNGDecoder = try! PluginRegistry.standard.decoder(named: "png")
private let trovePNGEncoder = try! PluginRegistry.standard.encoder(named: "png")

// Resize throughput per filter, and the decode + lanczos3 + PNG encode pipeline that
// scripts/pillow/resize_baseline.py times in Pillow on the same files. Baseline: copying the same
// pixels, so each resize reads as a multiple of a plain memory copy.

/// Tests/Fixtures/images, found from this file (Tools/Benchmarks/Benchmarks/Transformers/Transformers.swift).
private let imagesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/Fixtures/images")

private func decodedPhoto(_ name: String) -> Image {
    do {
        let data = try Data(contentsOf: imagesFolder.appendingPathComponent(name))
        return try trovePNGDecoder.decode(data, limits: .default)
    } catch {
        fatalError("benchmark fixture \(name) could not be loaded: \(error)")
    }
}

/// Exactly one megapixel (1250 x 800) of photo, so iterations per second read directly as megapixels per second.
private let megapixel: Image = {
    let coffee = decodedPhoto("coffee.png")
    do {
        return try ResizeTransformer(width: 1250, height: 800, mode: .stretch, filter: .lanczos3, upscale: true)
            .transform(coffee)
    } catch {
        fatalError("could not build the 1 MP benchmark image: \(error)")
    }
}()

/// The files and half sizes the Pillow script uses too.
private let pipelineFiles = ["chelsea.png", "coffee.png", "badge.png"]

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], timeUnits: .milliseconds,
        maxDuration: .seconds(3), maxIterations: 200)

    Benchmark("baseline: copy 1 MP of RGBA8", configuration: configuration) { benchmark in
        let source = megapixel.pixels
        for _ in benchmark.scaledIterations {
            var copy = [UInt8](repeating: 0, count: source.count)
            copy.withUnsafeMutableBytes { destination in
                source.withUnsafeBytes { destination.copyMemory(from: $0) }
            }
            blackHole(copy)
        }
    }

    for filter in ResizeTransformer.Filter.allCases {
        let resize = ResizeTransformer(width: 625, height: 400, mode: .stretch, filter: filter)
        Benchmark("resize \(filter.rawValue) 1 MP to half (iterations/s = MP/s)", configuration: configuration) {
            benchmark in
            let image = megapixel
            for _ in benchmark.scaledIterations {
                blackHole(try resize.transform(image))
            }
        }
    }

    Benchmark(
        "decode + lanczos3 half + encode PNG level 6 (chelsea, coffee, badge)",
        configuration: configuration
    ) { benchmark in
        let urls = pipelineFiles.map { imagesFolder.appendingPathComponent($0) }
        for _ in benchmark.scaledIterations {
            for url in urls {
                let image = try trovePNGDecoder.decode(Data(contentsOf: url), limits: .default)
                let half = try ResizeTransformer(
                    width: image.width / 2, height: image.height / 2, mode: .stretch,
                    filter: .lanczos3
                ).transform(image)
                blackHole(try trovePNGEncoder.encode(half, options: EncodingOptions(compressionLevel: 6)))
            }
        }
    }
}
