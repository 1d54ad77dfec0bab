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
        .package(url: "https://github.com/ordo-one/package-benchmark.git", from: "1.38.1",
                 traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Baseline",
            dependencies: [.product(name: "Benchmark", package: "package-benchmark"),
                           .product(name: "Trove", package: "Trove")],
            path: "Benchmarks/Baseline",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
    ]
)
