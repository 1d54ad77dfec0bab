import Benchmark
import Foundation
import Trove
import TroveJXL

// JPEG XL decoding through Trove's plugin against libjxl called directly, on the same bytes with the same
// settings (two threads, RGBA8): the coffee photo enlarged to 2400x1600 (a phone-sized picture's scale of
// work), encoded once by Trove's encoder lossy at quality 85 and lossless. Issue 25's bar: at most 1.1x.

private let codecs: PluginRegistry = {
    var registry = PluginRegistry.standard
    // Installing into a fresh copy of the standard registry cannot clash: a failure is a broken build.
    try! registry.install(TroveJXLPlugin())
    return registry
}()
private let troveJXLDecoder = try! codecs.decoder(named: "jxl")
private let troveJXLEncoder = try! codecs.encoder(named: "jxl")

/// Tests/Fixtures/images, found from this file.
private let imagesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/Fixtures/images")

/// Setup that cannot fail on the committed inputs; a failure names what it was doing.
private func prepared<T>(_ what: String, _ make: () throws -> T) -> T {
    do {
        return try make()
    } catch {
        fatalError("could not prepare \(what): \(error)")
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], timeUnits: .milliseconds,
        maxDuration: .seconds(5), maxIterations: 100)

    let photo = prepared("the enlarged coffee photo") {
        let coffee = try codecs.decoder(named: "png").decode(
            Data(contentsOf: imagesFolder.appendingPathComponent("coffee.png")), limits: .default)
        return try ResizeTransformer(width: 2400, height: 1600, mode: .stretch, filter: .lanczos3, upscale: true)
            .transform(coffee)
    }
    let inputs = [
        ("lossy q85", prepared("the lossy JXL") { try troveJXLEncoder.encode(photo, options: .init(quality: 0.85)) }),
        ("lossless", prepared("the lossless JXL") { try troveJXLEncoder.encode(photo, options: .init(lossless: true)) })
    ]
    for (label, data) in inputs {
        FileHandle.standardError.write(Data("JXL \(label): \(data.count) bytes\n".utf8))
        Benchmark("JXL decode coffee 2400x1600 \(label): libjxl", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(decodeWithLibjxl(data, threads: 2)) }
        }
        Benchmark("JXL decode coffee 2400x1600 \(label): TroveJXL", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try troveJXLDecoder.decode(data, limits: .default)) }
        }
    }
}
