import Benchmark
import Foundation
import Trove
import TroveJPEG

// A 24 MP photo (6000x4000, JPEG q90 and PNG) made into a thumbnail that fits 320x320 with lanczos3, by the
// route `trove convert big.jpg t.jpg --transform resize:w=320,h=320,mode=fit,filter=lanczos3` takes (the
// decoder streams rows into the resize, at a reduced size when it can; `ImageDecoder.decode(_:limits:for:)`),
// against the old route in the same run: decode at full size, then resize. Between them, the reduced decode
// without row streaming (`streamsRows: false`). Time and memory: peak resident memory of the process (it
// holds the input file's bytes throughout) and its rise over the start of each benchmark, and malloc calls.
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

/// The transforms a decode for `[thumbnail]` left to run, run.
private func finish(_ decoded: (Image, [any ImageTransformer])) throws -> Image {
    try decoded.1.reduce(decoded.0) { image, transformer in try transformer.transform(image) }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident, .peakMemoryResidentDelta, .mallocCountTotal],
        timeUnits: .milliseconds, maxDuration: .seconds(10), maxIterations: 25)
    let inputs: [(label: String, file: String, decoder: any ImageDecoder)] = [
        ("JPEG q90", "big.jpg", JPEGDecoder()),
        ("PNG", "big.png", PNGDecoder())
    ]
    for input in inputs {
        let url = inputsFolder.appendingPathComponent(input.file)
        guard let data = try? Data(contentsOf: url) else {
            FileHandle.standardError.write(
                Data(
                    ("Thumbnail: \(url.path) is missing, so its benchmarks are skipped. `make bench` makes it; or run "
                        + "scripts/pillow/python.sh scripts/pillow/thumbnail_bench.py make-inputs .build-bench "
                        + "(needs numpy) from the repository root.\n").utf8))
            continue
        }
        let decoder = input.decoder
        // All three routes must give the same thumbnail size, or the comparison means nothing.
        do {
            let sizes = try [
                thumbnail.transform(decoder.decode(data, limits: .default)),
                finish(decoder.decode(data, limits: .default, for: [thumbnail], streamsRows: false)),
                finish(decoder.decode(data, limits: .default, for: [thumbnail]))
            ].map { "\($0.width)x\($0.height)" }
            guard Set(sizes).count == 1 else { fatalError("the routes disagree on the thumbnail size: \(sizes)") }
        } catch {
            fatalError("\(url.path) could not be made into a thumbnail: \(error)")
        }
        let name = "Thumbnail 6000x4000 \(input.label) to fit 320x320 lanczos3"
        Benchmark("\(name): decode at full size, then resize (baseline)", configuration: configuration) {
            benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try thumbnail.transform(decoder.decode(data, limits: .default)))
            }
        }
        Benchmark("\(name): reduced decode, then resize", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try finish(decoder.decode(data, limits: .default, for: [thumbnail], streamsRows: false)))
            }
        }
        Benchmark("\(name): Trove (rows streamed into the resize)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try finish(decoder.decode(data, limits: .default, for: [thumbnail])))
            }
        }
    }
}
