import Benchmark
import Foundation
import Trove
import TroveJPEG

/// The codecs by their registry names: the codec types themselves are internal to Trove and its plugins.
private let codecs: PluginRegistry = {
    var registry = PluginRegistry.standard
    // Installing into a fresh copy of the standard registry cannot clash: a failure is a broken build.
    try! registry.install(TroveJPEGPlugin())
    return registry
}()
private let trovePNGDecoder = try! codecs.decoder(named: "png")
private let troveGIFDecoder = try! codecs.decoder(named: "gif")
private let troveJPEGDecoder = try! codecs.decoder(named: "jpeg")
private let trovePNGEncoder = try! codecs.encoder(named: "png")

// Decoding speed with its baseline beside it: Trove's PNG decoder against libpng on the same files (photos,
// a screenshot, a paletted image), Trove's JPEG plugin against libjpeg-turbo called directly (the plugin's
// overhead), GIF decoding against decoding the same picture as a paletted PNG, and PNG encoding against
// libpng's simplified write API (`png_image_write_to_memory`).

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
            for _ in benchmark.scaledIterations { blackHole(try trovePNGDecoder.decode(data, limits: .default)) }
        }
    }

    let jpeg = load(imagesFolder.appendingPathComponent("rocket.jpg"))
    Benchmark("JPEG decode rocket: libjpeg-turbo direct", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(decodeWithLibjpeg(jpeg)) }
    }
    Benchmark("JPEG decode rocket: TroveJPEG", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try troveJPEGDecoder.decode(jpeg, limits: .default)) }
    }

    let gif = load(suiteFolder.appendingPathComponent("Data/chelsea.gif"))
    let chelseaPNG: Data = {
        // The same chelsea picture as the GIF, re-encoded by Trove as RGBA PNG, is the GIF's baseline.
        do {
            let image = try troveGIFDecoder.decode(gif, limits: .default)
            return try trovePNGEncoder.encode(image, options: EncodingOptions())
        } catch {
            fatalError("could not prepare the GIF baseline: \(error)")
        }
    }()
    Benchmark("GIF decode chelsea: Trove PNG decode of the same pixels (baseline)", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations { blackHole(try trovePNGDecoder.decode(chelseaPNG, limits: .default)) }
    }
    Benchmark("GIF decode chelsea: Trove", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try troveGIFDecoder.decode(gif, limits: .default)) }
    }
    let animated = load(suiteFolder.appendingPathComponent("Data/chelsea-animated.gif"))
    Benchmark("GIF decode chelsea 10-frame animation: Trove", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try troveGIFDecoder.decode(animated, limits: .default)) }
    }

    // PNG encoding of the coffee photo. Trove's encoder gets the decoded RGBA image and writes RGB (every pixel
    // is opaque); libpng gets the same pixels already as RGB, so both write the same color type, each at its
    // default compression (level 6) and filter choice.
    let coffee: Image
    do {
        coffee = try trovePNGDecoder.decode(load(imagesFolder.appendingPathComponent("coffee.png")), limits: .default)
    } catch {
        fatalError("could not decode the PNG encode input: \(error)")
    }
    let coffeeRGB = rgbBytes(of: coffee)
    if let troveSize = try? trovePNGEncoder.encode(coffee, options: EncodingOptions()).count {
        let libpngSize = encodeWithLibpng(rgb: coffeeRGB, width: coffee.width, height: coffee.height).count
        FileHandle.standardError.write(Data("PNG encode coffee: Trove \(troveSize) B, libpng \(libpngSize) B\n".utf8))
    }
    Benchmark("PNG encode coffee photo: libpng png_image_write_to_memory", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(encodeWithLibpng(rgb: coffeeRGB, width: coffee.width, height: coffee.height))
        }
    }
    Benchmark("PNG encode coffee photo: Trove", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try trovePNGEncoder.encode(coffee, options: EncodingOptions()))
        }
    }
}

/// The RGB bytes of an opaque image, alpha dropped: libpng's input for the PNG encode baseline.
private func rgbBytes(of image: Image) -> [UInt8] {
    let rgba = image.convertedToRGBA8().pixels
    var rgb = [UInt8]()
    rgb.reserveCapacity(rgba.count / 4 * 3)
    for pixel in stride(from: 0, to: rgba.count, by: 4) { rgb.append(contentsOf: rgba[pixel..<pixel + 3]) }
    return rgb
}
