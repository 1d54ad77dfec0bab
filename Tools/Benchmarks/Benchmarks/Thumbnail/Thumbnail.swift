import Benchmark
import Foundation
import Trove
import TroveJPEG

/// The decoders by their registry names: the codec types themselves are internal to Trove and its plugins.
private let codecs: PluginRegistry = {
    var registry = PluginRegistry.standard
    // Installing into a fresh copy of the standard registry cannot clash: a failure is a broken build.
    try! registry.install(TroveJPEGPlugin())
    return registry
}()

// A 24 MP photo (6000x4000, JPEG q90 and PNG) made into a thumbnail that fits 320x320 with lanczos3, by the
// route `trove convert big.jpg t.jpg --transform resize:w=320,h=320,mode=fit,filter=lanczos3` takes (the
// decoder streams rows into the resize, at a reduced size when it can; `ImageDecoder.decode(_:limits:for:)`),
// against the old route in the same run: decode at full size, then resize. Between them, the reduced decode
// without row streaming (`streamsRows: false`). Time and memory: the process's peak resident memory while the
// benchmark is measured (it includes the runtime and the input file's bytes, and whatever the warm-up
// iteration left allocated), its rise over the start of the measurement, and malloc calls.
// Encoding the 320 px result is left out: it is the same small cost on every route.
//
// The inputs are not committed (40 MB): `make bench` makes them in .build-bench/ first, as
// scripts/thumbnail-bench does, with scripts/pillow/thumbnail_bench.py.

/// The repository's .build-bench folder, found from this file (Tools/Benchmarks/Benchmarks/Thumbnail/).
private let inputsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent(".build-bench")

/// What `resize:w=320,h=320,mode=fit,filter=lanczos3` parses to.
private let thumbnail = ResizeTransformer(width: 320, height: 320, mode: .fit, filter: .lanczos3)

/// The inputs' bytes, read on first use (package-benchmark runs each benchmark in a process of its own, so
/// each process reads only its file, during the warm-up iteration that comes before memory is sampled).
private let bigJPEG = load("big.jpg")
private let bigPNG = load("big.png")

private func load(_ file: String) -> Data {
    do {
        return try Data(contentsOf: inputsFolder.appendingPathComponent(file))
    } catch {
        fatalError("benchmark input \(inputsFolder.path)/\(file) could not be read: \(error)")
    }
}

/// The transforms a decode for `[thumbnail]` left to run, run; then a check that the result is the size a
/// full-size decode and resize gives, so every route makes the same thumbnail.
private func finish(_ decoded: (Image, [any ImageTransformer])) throws -> Image {
    let image = try decoded.1.reduce(decoded.0) { image, transformer in try transformer.transform(image) }
    // 6000x4000 fit into 320x320 (`outputSize(forWidth:height:)` is package).
    let expected = (width: 320, height: 213)
    guard image.width == expected.width, image.height == expected.height else {
        fatalError("a route made a \(image.width)x\(image.height) thumbnail, not \(expected.width)x\(expected.height)")
    }
    return image
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident, .peakMemoryResidentDelta, .mallocCountTotal],
        timeUnits: .milliseconds, maxDuration: .seconds(10), maxIterations: 25)
    let inputs: [(label: String, file: String, data: @Sendable () -> Data, decoder: any ImageDecoder)] = [
        ("JPEG q90", "big.jpg", { bigJPEG }, try! codecs.decoder(named: "jpeg")),
        ("PNG", "big.png", { bigPNG }, try! codecs.decoder(named: "png"))
    ]
    for input in inputs {
        let path = inputsFolder.appendingPathComponent(input.file).path
        guard FileManager.default.fileExists(atPath: path) else {
            FileHandle.standardError.write(
                Data(
                    ("Thumbnail: \(path) is missing, so its benchmarks are skipped. `make bench` makes it; or run "
                        + "`scripts/thumbnail-bench inputs` from the repository root.\n").utf8))
            continue
        }
        let (data, decoder) = (input.data, input.decoder)
        let name = "Thumbnail 6000x4000 \(input.label) to fit 320x320 lanczos3"
        Benchmark("\(name): decode at full size, then resize (baseline)", configuration: configuration) {
            benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try finish((decoder.decode(data(), limits: .default), [thumbnail])))
            }
        }
        Benchmark("\(name): reduced decode, then resize", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try finish(decoder.decode(data(), limits: .default, for: [thumbnail], streamsRows: false)))
            }
        }
        Benchmark("\(name): Trove (rows streamed into the resize)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try finish(decoder.decode(data(), limits: .default, for: [thumbnail])))
            }
        }
    }
}
