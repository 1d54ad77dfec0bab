import Benchmark
import Foundation
import Trove
import TroveAVIF
import TroveWebP

/// The codecs by their registry names: the codec types themselves are internal to Trove and its plugins.
private let codecs: PluginRegistry = {
    var registry = PluginRegistry.standard
    // Installing into a fresh copy of the standard registry cannot clash: a failure is a broken build.
    try! registry.install(TroveWebPPlugin())
    try! registry.install(TroveAVIFPlugin())
    return registry
}()
private let trovePNGDecoder = try! codecs.decoder(named: "png")
private let troveGIFDecoder = try! codecs.decoder(named: "gif")
private let troveWebPDecoder = try! codecs.decoder(named: "webp")
private let troveWebPEncoder = try! codecs.encoder(named: "webp")
/// The AVIF plugin's defaults (`AVIFEncoder`/`AVIFDecoder`), which libavif is given too.
private let avifDefaultSpeed = 8
private let avifThreads = 2

// WebP and AVIF decoding and encoding through Trove's plugins against libwebp and libavif called directly, on
// the same pixels with the same settings: the coffee photo (600x400) as lossy WebP at quality 85, lossless WebP
// (level 6) and 8-bit AVIF at the AVIF plugin's defaults (quality 0.85, speed 8, two threads), and a 10-frame
// 451x300 animated WebP. Decode inputs are made once by Trove's encoders; both sides decode the same bytes.

/// Tools/Benchmarks/Benchmarks/WebPAVIF, found from this file.
private let suiteFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
private let imagesFolder = suiteFolder.deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/images")
private let animatedGIF = suiteFolder.deletingLastPathComponent().appendingPathComponent(
    "Codecs/Data/chelsea-animated.gif")

/// Setup that cannot fail on the committed inputs; a failure names what it was doing.
private func prepared<T>(_ what: String, _ make: () throws -> T) -> T {
    do {
        return try make()
    } catch {
        fatalError("could not prepare \(what): \(error)")
    }
}

/// One line on stderr, so the sizes of what each side wrote are in the run's log beside the times.
private func note(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], timeUnits: .microseconds,
        maxDuration: .seconds(3), maxIterations: 300)

    let photo = prepared("the coffee photo") {
        try trovePNGDecoder.decode(
            Data(contentsOf: imagesFolder.appendingPathComponent("coffee.png")), limits: .default
        )
        .convertedToRGBA8()
    }
    let (width, height, rgba) = (photo.width, photo.height, photo.pixels)
    let lossy = EncodingOptions(quality: 0.85)
    let lossless = EncodingOptions(lossless: true)  // compression level 6, the default

    // WebP decoding.
    let lossyWebP = prepared("the lossy WebP") { try troveWebPEncoder.encode(photo, options: lossy) }
    let losslessWebP = prepared("the lossless WebP") { try troveWebPEncoder.encode(photo, options: lossless) }
    let animatedWebP = prepared("the animated WebP") {
        try troveWebPEncoder.encode(
            troveGIFDecoder.decode(Data(contentsOf: animatedGIF), limits: .default), options: lossy)
    }
    for (label, data) in [("lossy q85", lossyWebP), ("lossless", losslessWebP)] {
        Benchmark("WebP decode coffee \(label): libwebp WebPDecodeRGBA", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(decodeWithLibwebp(data)) }
        }
        Benchmark("WebP decode coffee \(label): TroveWebP", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try troveWebPDecoder.decode(data, limits: .default)) }
        }
    }
    Benchmark("WebP decode chelsea 10-frame animation: libwebp WebPAnimDecoder", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations { blackHole(decodeAnimationWithLibwebp(animatedWebP)) }
    }
    Benchmark("WebP decode chelsea 10-frame animation: TroveWebP", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try troveWebPDecoder.decode(animatedWebP, limits: .default)) }
    }

    // WebP encoding.
    note(
        "WebP encode coffee: lossy q85 Trove \(lossyWebP.count) B, libwebp "
            + "\(encodeLossyWithLibwebp(rgba: rgba, width: width, height: height, quality: 85).count) B; "
            + "lossless Trove \(losslessWebP.count) B, libwebp "
            + "\(encodeLosslessWithLibwebp(rgba: rgba, width: width, height: height, level: 6).count) B")
    Benchmark("WebP encode coffee lossy q85: libwebp WebPEncodeRGBA", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(encodeLossyWithLibwebp(rgba: rgba, width: width, height: height, quality: 85))
        }
    }
    Benchmark("WebP encode coffee lossy q85: TroveWebP", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try troveWebPEncoder.encode(photo, options: lossy)) }
    }
    Benchmark("WebP encode coffee lossless: libwebp advanced API", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(encodeLosslessWithLibwebp(rgba: rgba, width: width, height: height, level: 6))
        }
    }
    Benchmark("WebP encode coffee lossless: TroveWebP", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try troveWebPEncoder.encode(photo, options: lossless)) }
    }

    // AVIF: the plugin's defaults, and libavif given the same ones.
    let avifEncoder = try! codecs.encoder(named: "avif")
    let avifDecoder = try! codecs.decoder(named: "avif")
    let speed = Int32(avifDefaultSpeed)
    let encodeThreads = Int32(avifThreads)
    let decodeThreads = Int32(avifThreads)
    let quantizer: Int32 = ((100 - 85) * 63 + 50) / 100  // libavif 1.x's mapping of quality 85, as the plugin's
    let avif = prepared("the AVIF") { try avifEncoder.encode(photo, options: lossy) }
    let libavifBytes = encodeWithLibavif(
        rgba: rgba, width: width, height: height, quantizer: quantizer, speed: speed, maxThreads: encodeThreads)
    note("AVIF encode coffee: Trove \(avif.count) B, libavif \(libavifBytes.count) B")
    Benchmark("AVIF decode coffee 8-bit: libavif", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(decodeWithLibavif(avif, maxThreads: decodeThreads)) }
    }
    Benchmark("AVIF decode coffee 8-bit: TroveAVIF", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try avifDecoder.decode(avif, limits: .default)) }
    }
    Benchmark("AVIF encode coffee q85 speed 8: libavif", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                encodeWithLibavif(
                    rgba: rgba, width: width, height: height, quantizer: quantizer, speed: speed,
                    maxThreads: encodeThreads))
        }
    }
    Benchmark("AVIF encode coffee q85 speed 8: TroveAVIF", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try avifEncoder.encode(photo, options: lossy)) }
    }
}
