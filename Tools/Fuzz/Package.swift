// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for the decoders that read untrusted bytes. Built and run by `make fuzz`
// (`-sanitize=fuzzer,address`); not part of `make test`. The sources come from the main package through
// the symlink Trove -> ../.., so this package builds only what the decoders need.
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "TroveFuzz",
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
        // The checks and the libFuzzer hand-off every decoder target shares.
        .target(name: "FuzzDriver", dependencies: ["TroveCore"], path: "FuzzDriver", swiftSettings: swift6),
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
            swiftSettings: swift6)
    ]
)
