import Benchmark
import Foundation
import Trove
import TroveJPEG

// Decoding speed with its baseline beside it: Trove's PNG decoder against libpng on the same files (photos,
// a screenshot, a paletted image), Trove's JPEG plugin against libjpeg-turbo called directly (the plugin's
// overhead), and GIF decoding against decoding the same picture as a paletted PNG.

/// Tools/Benchmarks/Benchmarks/Codecs, found from this file.
private let suiteFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
private let imagesFolder = suiteFolder.deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/images")

private func load(_ url: URL) -> Data {
    do {
        return try Data(contentsOf: url)
    } catch {
        fatalError("benchmark input \(url.path) could not be read: \(error)")
    }
}

private let pngFiles: [(label: String, url: URL)] = [
    ("chelsea photo", imagesFolder.appendingPathComponent("chelsea.png")),
    ("coffee photo", imagesFolder.appendingPathComponent("coffee.png")),
    ("screenshot", suiteFolder.appendingPathComponent("Data/screenshot.png")),
    ("paletted", suiteFolder.appendingPathComponent("Data/coffee-palette.png"))
]

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], timeUnits: .milliseconds,
        maxDuration: .seconds(3), maxIterations: 300)

    for file in pngFiles {
        let data = load(file.url)
        Benchmark("PNG decode \(file.label): libpng", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(decodeWithLibpng(data)) }
        }
        Benchmark("PNG decode \(file.label): Trove", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try PNGDecoder().decode(data, limits: .default)) }
        }
    }

    let jpeg = load(imagesFolder.appendingPathComponent("rocket.jpg"))
    Benchmark("JPEG decode rocket: libjpeg-turbo direct", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(decodeWithLibjpeg(jpeg)) }
    }
    Benchmark("JPEG decode rocket: TroveJPEG", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try JPEGDecoder().decode(jpeg, limits: .default)) }
    }

    let gif = load(suiteFolder.appendingPathComponent("Data/chelsea.gif"))
    let chelseaPNG: Data = {
        // The same chelsea picture as the GIF, re-encoded by Trove as RGBA PNG, is the GIF's baseline.
        do {
            let image = try GIFDecoder().decode(gif, limits: .default)
            return try PNGEncoder().encode(image, options: EncodingOptions())
        } catch {
            fatalError("could not prepare the GIF baseline: \(error)")
        }
    }()
    Benchmark("GIF decode chelsea: Trove PNG decode of the same pixels (baseline)", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PNGDecoder().decode(chelseaPNG, limits: .default)) }
    }
    Benchmark("GIF decode chelsea: Trove", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try GIFDecoder().decode(gif, limits: .default)) }
    }
    let animated = load(suiteFolder.appendingPathComponent("Data/chelsea-animated.gif"))
    Benchmark("GIF decode chelsea 10-frame animation: Trove", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try GIFDecoder().decode(animated, limits: .default)) }
    }
}
