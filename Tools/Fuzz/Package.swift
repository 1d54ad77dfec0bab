// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for the decoders that read untrusted bytes, alone (Fuzz<Format>), as a request runs
// them (FuzzRequest<Format>: colour management, shrink-on-load, transforms, encoders) and through the pipeline
// itself (FuzzPipeline: `ImagePipeline.image(for:)`, the planar JPEG route included). Built and run by
// `make fuzz` (`-sanitize=fuzzer,address`); not part of `make test`. The sources come from the main package
// through the symlink Trove -> ../..; only FuzzPipeline needs the Trove module and its packages.
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "TroveFuzz",
    dependencies: [
        // The colour stage logs through swift-log; FuzzPipeline's Trove module needs the rest (the versions the
        // main package asks for).
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0")
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Trove/Modules/CZlib", pkgConfig: "zlib"),
        .systemLibrary(name: "CDeflate", path: "Trove/Modules/CDeflate", pkgConfig: "libdeflate"),
        .systemLibrary(name: "CJPEG", path: "Trove/Plugins/CJPEG", pkgConfig: "libjpeg"),
        .target(name: "CJPEGShim", dependencies: ["CJPEG"], path: "Trove/Plugins/CJPEGShim"),
        .systemLibrary(name: "CWebP", path: "Trove/Plugins/CWebP", pkgConfig: "libwebp"),
        .target(name: "CTroveSupport", dependencies: ["CZlib"], path: "Trove/Modules/CTroveSupport"),
        .target(name: "TroveCore", path: "Trove/Modules/TroveCore", swiftSettings: swift6),
        .target(
            name: "TroveSupport", dependencies: ["CTroveSupport"], path: "Trove/Modules/TroveSupport",
            swiftSettings: swift6),
        .target(
            name: "TroveCodec", dependencies: ["TroveCore", "TroveSupport", "CZlib", "CDeflate", "CTroveSupport"],
            path: "Trove/Modules/TroveCodec",
            swiftSettings: swift6),
        .target(
            name: "TroveJPEG", dependencies: ["TroveCore", "CJPEG", "CJPEGShim"], path: "Trove/Plugins/TroveJPEG",
            swiftSettings: swift6),
        .target(
            name: "TroveWebP", dependencies: ["TroveCore", "CWebP"], path: "Trove/Plugins/TroveWebP",
            swiftSettings: swift6),
        .systemLibrary(name: "CAVIF", path: "Trove/Plugins/CAVIF", pkgConfig: "libavif"),
        .target(
            name: "TroveAVIF", dependencies: ["TroveCore", "CAVIF"], path: "Trove/Plugins/TroveAVIF",
            swiftSettings: swift6),
        .systemLibrary(name: "CJXL", path: "Trove/Plugins/CJXL", pkgConfig: "libjxl"),
        .target(
            name: "TroveJXL", dependencies: ["TroveCore", "CJXL"], path: "Trove/Plugins/TroveJXL",
            swiftSettings: swift6),
        .systemLibrary(name: "CHEIF", path: "Trove/Plugins/CHEIF", pkgConfig: "libheif"),
        .target(
            name: "TroveHEIF", dependencies: ["TroveCore", "CHEIF"], path: "Trove/Plugins/TroveHEIF",
            swiftSettings: swift6),
        .systemLibrary(name: "CLCMS2", path: "Trove/Plugins/CLCMS2", pkgConfig: "lcms2"),
        .target(
            name: "TroveColor", dependencies: ["TroveCore", "CLCMS2"], path: "Trove/Plugins/TroveColor",
            swiftSettings: swift6),
        .target(name: "CResample", path: "Trove/Modules/CResample"),
        .target(
            name: "TroveTransformers", dependencies: ["TroveCore", "CResample"],
            path: "Trove/Modules/TroveTransformers",
            swiftSettings: swift6),
        // The whole Trove module and what it wires, for FuzzPipeline: the request as `ImagePipeline` runs it.
        .target(
            name: "TroveEviction", dependencies: ["TroveCore"], path: "Trove/Modules/TroveEviction",
            swiftSettings: swift6),
        .target(
            name: "TroveFetcher",
            dependencies: [
                "TroveCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ],
            path: "Trove/Modules/TroveFetcher", swiftSettings: swift6),
        .target(
            name: "TroveMemoryCache", dependencies: ["TroveCore", "TroveEviction"],
            path: "Trove/Modules/TroveMemoryCache", swiftSettings: swift6),
        .target(
            name: "TroveDiskCache",
            dependencies: [
                "TroveCore", "TroveEviction", "TroveSupport", "CZlib", "CTroveSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            path: "Trove/Modules/TroveDiskCache", swiftSettings: swift6),
        .target(name: "TrovePlaceholders", path: "Trove/Modules/TrovePlaceholders", swiftSettings: swift6),
        .target(
            name: "Trove",
            dependencies: [
                "TroveCore", "TroveEviction", "TroveFetcher", "TroveMemoryCache", "TroveDiskCache",
                "TroveCodec", "TroveTransformers", "TrovePlaceholders", "CTroveSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            path: "Trove/Modules/Trove", swiftSettings: swift6),
        // What the Trove module runs between the fetch and the transforms (the shrink-on-load decode, the colour
        // stage, the row router for turned images, `Image.transformed`): symlinks to only those files, so the
        // fuzzers do not build the fetcher, the caches and their packages. A file they come to need gets a link.
        .target(
            name: "TroveRequestPath",
            dependencies: ["TroveCore", "TroveTransformers", .product(name: "Logging", package: "swift-log")],
            path: "TroveRequestPath", swiftSettings: swift6),
        // The checks and the libFuzzer hand-off every target shares, and the request targets' input choices.
        .target(
            name: "FuzzDriver", dependencies: ["TroveCore", "TroveSupport", "TroveTransformers"], path: "FuzzDriver",
            swiftSettings: swift6),
        // The request every FuzzRequest target runs, with every plugin registered.
        .target(
            name: "RequestFuzzing",
            dependencies: [
                "FuzzDriver", "TroveRequestPath", "TroveCore", "TroveSupport", "TroveCodec", "TroveTransformers",
                "TroveColor",
                "TroveJPEG", "TroveWebP", "TroveAVIF", "TroveJXL", "TroveHEIF",
                .product(name: "Logging", package: "swift-log")
            ],
            path: "RequestFuzzing", swiftSettings: swift6),
        .executableTarget(
            name: "FuzzPNG", dependencies: ["FuzzDriver", "TroveCodec"], path: "FuzzPNG",
            swiftSettings: swift6),
        .executableTarget(
            name: "FuzzGIF", dependencies: ["FuzzDriver", "TroveCodec"], path: "FuzzGIF",
            swiftSettings: swift6),
        .executableTarget(
            name: "FuzzJPEG", dependencies: ["FuzzDriver", "TroveJPEG"], path: "FuzzJPEG",
            swiftSettings: swift6),
        .executableTarget(
            name: "FuzzWebP", dependencies: ["FuzzDriver", "TroveWebP"], path: "FuzzWebP",
            swiftSettings: swift6),
        .executableTarget(
            name: "FuzzAVIF", dependencies: ["FuzzDriver", "TroveAVIF"], path: "FuzzAVIF",
            swiftSettings: swift6),
        .executableTarget(
            name: "FuzzJXL", dependencies: ["FuzzDriver", "TroveJXL"], path: "FuzzJXL",
            swiftSettings: swift6),
        .executableTarget(
            name: "FuzzHEIF", dependencies: ["FuzzDriver", "TroveHEIF"], path: "FuzzHEIF",
            swiftSettings: swift6),
        // `ImagePipeline.image(for:)` itself, every plugin installed: the planar JPEG route, the stages and the
        // memory tier that the FuzzRequest targets replicate only in part.
        .executableTarget(
            name: "FuzzPipeline",
            dependencies: [
                "FuzzDriver", "Trove", "TroveCore", "TroveTransformers", "TroveJPEG", "TroveWebP", "TroveAVIF",
                "TroveJXL", "TroveHEIF", "TroveColor", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics")
            ],
            path: "FuzzPipeline", swiftSettings: swift6)
    ]
        + ["PNG", "GIF", "JPEG", "WebP", "AVIF", "JXL", "HEIF"].map { format in
            .executableTarget(
                name: "FuzzRequest\(format)", dependencies: ["RequestFuzzing"], path: "FuzzRequest\(format)",
                swiftSettings: swift6)
        }
)
