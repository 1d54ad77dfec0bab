import Benchmark
import Trove

let benchmarks: @Sendable () -> Void = {
    Benchmark("sniff PNG header") { benchmark in
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        for _ in benchmark.scaledIterations {
            blackHole(ImageFormat.wellKnown(sniffing: header))
        }
    }
}
