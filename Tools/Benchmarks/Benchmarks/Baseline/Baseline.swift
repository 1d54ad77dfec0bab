import Benchmark
import Foundation
import Trove

/// `ImageFormat.wellKnown(sniffing:)` is package: the PNG decoder's own header check is the public sniff.
private let pngDecoder = try! PluginRegistry.standard.decoder(named: "png")

let benchmarks: @Sendable () -> Void = {
    Benchmark("sniff PNG header") { benchmark in
        let header = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        for _ in benchmark.scaledIterations {
            blackHole(pngDecoder.canDecode(header))
        }
    }
}
