// swift-tools-version:6.1
import PackageDescription

// Benchmarks live in their own package so the main build and `make test` never pay for package-benchmark.
// Each suite runs its baseline in the same run, so results read as ratios. Run with `make bench`.
let package = Package(
    name: "TroveBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // `Trove` is a symlink to the repository root, so the package identity is "trove" whatever the clone is called.
        .package(path: "Trove"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(
            url: "https://github.com/ordo-one/package-benchmark.git", from: "1.38.1",
            traits: ["MallocInterposer"])
    ],
    targets: [
        // Baselines more than one suite measures against.
        .target(
            name: "BenchmarkBaselines", path: "Sources/BenchmarkBaselines", swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "Baseline",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Trove", package: "Trove")
            ],
            path: "Benchmarks/Baseline",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            name: "Transformers",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Trove", package: "Trove")
            ],
            path: "Benchmarks/Transformers",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            name: "MemoryCache",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Trove", package: "Trove")
            ],
            path: "Benchmarks/MemoryCache",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        // Read-hit against a bare file read, write against a bare write + rename, opening 100k entries.
        // (Named so it does not clash with the DiskCache type.)
        .executableTarget(
            name: "DiskCacheBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                "BenchmarkBaselines",
                .product(name: "Trove", package: "Trove")
            ],
            path: "Benchmarks/DiskCache",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        // The pipeline's miss path against a bare AsyncHTTPClient GET of the same loopback URL; hit paths.
        .executableTarget(
            name: "Pipeline",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                "BenchmarkBaselines",
                .product(name: "Trove", package: "Trove"),
                .product(name: "FixtureServer", package: "Trove"),
                .product(name: "AsyncHTTPClient", package: "async-http-client")
            ],
            path: "Benchmarks/Pipeline",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        // The shared tier on a real redis-server and a real SeaweedFS: a shared hit against a bare GET of the
        // same value (a bare signed S3 GET for S3), pipelined GETs, and a shared hit against an origin miss.
        .executableTarget(
            name: "SharedTier",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Trove", package: "Trove"),
                .product(name: "TroveRedis", package: "Trove"),
                .product(name: "TroveS3", package: "Trove"),
                .product(name: "FixtureServer", package: "Trove"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto")
            ],
            path: "Benchmarks/SharedTier",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        // PNG/GIF/JPEG decoding and PNG encoding against the C libraries called directly (system libraries used
        // only here).
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CLibJPEG", path: "Sources/CLibJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]),
        .executableTarget(
            name: "Codecs",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Trove", package: "Trove"),
                .product(name: "TroveJPEG", package: "Trove"),
                "CPNG", "CLibJPEG"
            ],
            path: "Benchmarks/Codecs",
            exclude: ["Data"],
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        // WebP and AVIF decoding and encoding against libwebp and libavif called directly (system libraries used
        // only here, named apart from the plugins' CWebP and CAVIF).
        .systemLibrary(
            name: "CLibWebP", path: "Sources/CLibWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(
            name: "CLibAVIF", path: "Sources/CLibAVIF", pkgConfig: "libavif", providers: [.apt(["libavif-dev"])]),
        .executableTarget(
            name: "WebPAVIF",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Trove", package: "Trove"),
                .product(name: "TroveWebP", package: "Trove"),
                .product(name: "TroveAVIF", package: "Trove"),
                "CLibWebP", "CLibAVIF"
            ],
            path: "Benchmarks/WebPAVIF",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        // JPEG XL decoding against libjxl called directly (a system library used only here, named apart from the
        // plugin's CJXL).
        .systemLibrary(
            name: "CLibJXL", path: "Sources/CLibJXL", pkgConfig: "libjxl", providers: [.apt(["libjxl-dev"])]),
        .executableTarget(
            name: "JXL",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Trove", package: "Trove"),
                .product(name: "TroveJXL", package: "Trove"),
                "CLibJXL"
            ],
            path: "Benchmarks/JXL",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        // 24 MP JPEG and PNG to a 320 px thumbnail: the row-streaming shrink-on-load route against decoding at
        // full size, then resizing; time and memory. Inputs come from .build-bench/ (`make bench` makes them).
        .executableTarget(
            name: "Thumbnail",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Trove", package: "Trove"),
                .product(name: "TroveJPEG", package: "Trove")
            ],
            path: "Benchmarks/Thumbnail",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")])
    ]
)
