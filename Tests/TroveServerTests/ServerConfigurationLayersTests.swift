import Foundation
import Testing
import Trove
import TroveServer

/// `ServerConfiguration(configFile:environment:arguments:)`: defaults, then the file, then the environment
/// (imgproxy's variables under Trove's), then the flags; every bad value is named with how it was given.
@Suite struct ServerConfigurationLayersTests {
    private func withConfigFile(_ json: String, _ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("serve.json")
        try Data(json.utf8).write(to: file)
        try body(file)
    }

    @Test func laterLayersWinAndUnsetFieldsKeepEarlierOnes() throws {
        try withConfigFile(#"{"port": 9000, "keys": ["aa"], "salts": ["bb"], "maxQueue": 3}"#) { file in
            let configuration = try ServerConfiguration(
                configFile: file,
                environment: ["TROVE_PORT": "9100", "TROVE_ALLOWED_SOURCES": "https://a.example/, https://b.example/"],
                arguments: ["--port", "0"])
            #expect(configuration.port == 0)
            #expect(configuration.keys == ["aa"] && configuration.salts == ["bb"])
            #expect(configuration.maxQueue == 3)
            #expect(configuration.allowedSources == ["https://a.example/", "https://b.example/"])
            #expect(configuration.requiresSignature)
            // --config among the flags names the same file.
            let viaFlag = try ServerConfiguration(arguments: ["--config", file.path])
            #expect(viaFlag.port == 9000 && viaFlag.maxQueue == 3)
        }
    }

    @Test func flagsTakeValuesListsAndSwitches() throws {
        let configuration = try ServerConfiguration(arguments: [
            "--key", "aa", "--salt", "bb", "--key=cc", "--salt", "dd", "--allow-loopback-sources", "--no-result-cache",
            "--preset", "thumb=rs:fill:300:300", "--max-source-pixels=1000", "--deadline", "2.5",
            "--result-memory", "64M", "--log-level", "warning", "--no-source-cache"
        ])
        #expect(configuration.keys == ["aa", "cc"] && configuration.salts == ["bb", "dd"])
        #expect(configuration.allowLoopbackSources && !configuration.resultCache)
        #expect(!configuration.pipeline.keepsOriginalsOnDisk && ServerConfiguration().pipeline.keepsOriginalsOnDisk)
        #expect(configuration.presets == ["thumb": "rs:fill:300:300"])
        #expect(configuration.pipeline.decodingLimits.maxPixels == 1000)
        #expect(configuration.pipeline.requestDeadline == .milliseconds(2500))
        #expect(configuration.resultMemoryBytes == 64 << 20)
        #expect(configuration.logLevel == .warning)
        #expect(throws: ServerConfigurationError("--port needs a value")) {
            try ServerConfiguration(arguments: ["--port"])
        }
        #expect(throws: ServerConfigurationError("--presets-only takes no value")) {
            try ServerConfiguration(arguments: ["--presets-only=yes"])
        }
        #expect {
            try ServerConfiguration(arguments: ["--prot", "80"])
        } throws: { error in
            "\(error)".hasPrefix("unknown option '--prot'; known: --config, --host, --port")
        }
    }

    @Test func badValuesAreNamedWithHowTheyWereGiven() throws {
        #expect(throws: ServerConfigurationError("TROVE_PORT=eighty is not a whole number")) {
            try ServerConfiguration(environment: ["TROVE_PORT": "eighty"])
        }
        #expect(throws: ServerConfigurationError("--port eighty is not a whole number")) {
            try ServerConfiguration(arguments: ["--port", "eighty"])
        }
        #expect(
            throws: ServerConfigurationError("TROVE_ALLOW_LOOPBACK_SOURCES=maybe is not a switch; use true or false")
        ) {
            try ServerConfiguration(environment: ["TROVE_ALLOW_LOOPBACK_SOURCES": "maybe"])
        }
        #expect(throws: ServerConfigurationError("--max-concurrency must be 1 or more, not 0")) {
            try ServerConfiguration(arguments: ["--max-concurrency", "0"])
        }
        #expect(throws: ServerConfigurationError("--port must be in 0...65535, not 70000")) {
            try ServerConfiguration(arguments: ["--port", "70000"])
        }
        #expect(throws: ServerConfigurationError("--avif-speed must be in 0...10, not 11")) {
            try ServerConfiguration(arguments: ["--avif-speed", "11"])
        }
        #expect(
            throws: ServerConfigurationError(
                "TROVE_RESULT_MEMORY=lots is not a byte count; give one like 1048576, 64k, 500M or 2G")
        ) {
            try ServerConfiguration(environment: ["TROVE_RESULT_MEMORY": "lots"])
        }
    }

    @Test func resultAndRequestLimitsAndTheReducingGapComeFromEveryLayer() throws {
        let defaults = ServerConfiguration()
        #expect(defaults.maxResultDimension == 8192 && defaults.maxRequests == 1024)
        #expect(defaults.pipeline.shrinkOnLoadReducingGap == 1)
        #expect(defaults.pipeline.decodingLimits.maxPixels == 50_000_000)
        #expect(defaults.pipeline.decodingLimits.maxFrames == 100)
        #expect(defaults.pipeline.requestDeadline == .seconds(30))
        let configuration = try ServerConfiguration(environment: [
            "TROVE_MAX_RESULT_DIMENSION": "4000", "TROVE_MAX_REQUESTS": "50", "TROVE_REDUCING_GAP": "2.5"
        ])
        #expect(configuration.maxResultDimension == 4000)
        #expect(configuration.maxRequests == 50)
        #expect(configuration.pipeline.shrinkOnLoadReducingGap == 2.5)
        #expect(throws: ServerConfigurationError("TROVE_REDUCING_GAP=wide is not a number")) {
            try ServerConfiguration(environment: ["TROVE_REDUCING_GAP": "wide"])
        }
        #expect(
            throws: ServerConfigurationError(
                "--reducing-gap must be 1 or more (1 reduces to the output size), not 0.5")
        ) { try ServerConfiguration(arguments: ["--reducing-gap", "0.5"]) }
        #expect(throws: ServerConfigurationError("--max-result-dimension must be 1 or more, not 0")) {
            try ServerConfiguration(arguments: ["--max-result-dimension", "0"])
        }
    }

    @Test func imgproxysVariablesAreReadAndTrovesWin() throws {
        let imgproxy = try ServerConfiguration(environment: [
            "IMGPROXY_KEY": "943b421c9eb07c83", "IMGPROXY_SALT": "520f986b998545b4",
            "IMGPROXY_BIND": ":9090", "IMGPROXY_WORKERS": "3", "IMGPROXY_MAX_SRC_RESOLUTION": "16.8",
            "IMGPROXY_MAX_SRC_FILE_SIZE": "0", "IMGPROXY_TTL": "3600", "IMGPROXY_SIGNATURE_SIZE": "8",
            "IMGPROXY_PRESETS": "thumb=rs:fit:100:100,wide=rs:fill:800:400", "IMGPROXY_ONLY_PRESETS": "true",
            "IMGPROXY_LOG_LEVEL": "warn", "IMGPROXY_ALLOWED_SOURCES": "https://a.example/",
            "IMGPROXY_AUTO_ROTATE": "false", "IMGPROXY_QUALITY": "70", "IMGPROXY_FORMAT_QUALITY": "avif=40,jpeg=75",
            "IMGPROXY_ALLOW_SECURITY_OPTIONS": "true", "IMGPROXY_WATERMARK_PATH": "/srv/wm.png",
            "IMGPROXY_AVIF_SPEED": "9"
        ])
        #expect(imgproxy.keys == ["943b421c9eb07c83"] && imgproxy.salts == ["520f986b998545b4"])
        #expect(imgproxy.host == "0.0.0.0" && imgproxy.port == 9090)
        #expect(imgproxy.maxConcurrency == 3)
        #expect(imgproxy.pipeline.decodingLimits.maxPixels == 16_800_000)
        // imgproxy's 0 is "no limit": Trove keeps its own.
        #expect(imgproxy.pipeline.maxBytes == ServerConfiguration().pipeline.maxBytes)
        #expect(imgproxy.resultMaxAge == 3600 && imgproxy.signatureSize == 8)
        #expect(imgproxy.presets == ["thumb": "rs:fit:100:100", "wide": "rs:fill:800:400"] && imgproxy.presetsOnly)
        #expect(imgproxy.logLevel == .warning && imgproxy.allowedSources == ["https://a.example/"])
        #expect(!imgproxy.autoRotate && imgproxy.pipeline.encodingOptions.quality == 0.7)
        // Formats the variable names change; the others keep their defaults.
        #expect(imgproxy.formatQualities == [.avif: 40, .jpeg: 75, .webp: 79, .jxl: 77])
        #expect(imgproxy.allowSecurityOptions && imgproxy.watermarkFile == "/srv/wm.png")
        #expect(imgproxy.avifSpeed == 9 && ServerConfiguration().avifSpeed == 8)

        let both = try ServerConfiguration(
            environment: [
                "IMGPROXY_WORKERS": "3", "TROVE_MAX_CONCURRENCY": "5", "IMGPROXY_BIND": "0.0.0.0:9090",
                "IMGPROXY_AVIF_SPEED": "9", "TROVE_AVIF_SPEED": "6"
            ],
            arguments: ["--host", "127.0.0.1"])
        #expect(both.maxConcurrency == 5 && both.host == "127.0.0.1" && both.port == 9090)
        #expect(both.avifSpeed == 6)
        let flagged = try ServerConfiguration(environment: ["TROVE_AVIF_SPEED": "6"], arguments: ["--avif-speed", "10"])
        #expect(flagged.avifSpeed == 10)

        let ignored = ServerConfiguration.ignoredVariables(in: [
            "IMGPROXY_KEY": "aa", "IMGPROXY_USE_GCS": "true", "IMGPROXY_JPEG_PROGRESSIVE": "1", "HOME": "/root"
        ])
        #expect(ignored == ["IMGPROXY_JPEG_PROGRESSIVE", "IMGPROXY_USE_GCS"])
    }

    @Test func theConfigFileCarriesThePipelinesOwnSettingsOverTheServersDefaults() throws {
        try withConfigFile(
            #"{"maxQueue": 4, "pipeline": {"hasher": "md5", "disk": {"byteLimit": 1048576}, "retryPolicy": {"maxRetries": 0}}}"#
        ) { file in
            var configuration = try ServerConfiguration(configFile: file)
            configuration.pipeline.cacheDirectory = file.deletingLastPathComponent().appendingPathComponent("cache")
            #expect(configuration.maxQueue == 4)
            #expect(configuration.pipeline.hasher == "md5" && configuration.pipeline.disk.byteLimit == 1 << 20)
            // Keys the file leaves out keep the server's defaults, not a library pipeline's.
            #expect(configuration.pipeline.decodingLimits.maxPixels == 50_000_000)
            #expect(configuration.pipeline.requestDeadline == .seconds(30))
            // The server builds its pipeline on them, with its own settings on top.
            let server = try ImageProxyServer(configuration: configuration, registry: .standard)
            #expect(server.pipeline.configuration.hasher == "md5")
            #expect(server.pipeline.configuration.retryPolicy.maxRetries == 0)
            #expect(server.pipeline.configuration.disk.byteLimit == 1 << 20)
            #expect(server.pipeline.configuration.memory.countLimit == 0)
            #expect(server.pipeline.configuration.cacheDirectory == configuration.pipeline.cacheDirectory)
        }
        try withConfigFile(#"{"pipeline": {"hasherr": "md5"}}"#) { file in
            #expect {
                try ServerConfiguration(configFile: file)
            } throws: { error in
                "\(error)".hasPrefix(
                    "config file \(file.path): pipeline: unknown field 'hasherr'; known: cacheDirectory")
            }
        }
        // A pipeline key the server sets itself would be ignored in silence: refused, naming the setting to use.
        try withConfigFile(#"{"pipeline": {"hasher": "md5", "scheduler": {"maxConcurrent": 2}}}"#) { file in
            #expect(
                throws: ServerConfigurationError(
                    "'pipeline.scheduler' is set by the server; use the top-level maxConcurrency and maxQueue instead")
            ) { try ServerConfiguration(configFile: file) }
        }
        // A nested field the server owns is refused by its path; its siblings are the user's to set.
        try withConfigFile(#"{"pipeline": {"memory": {"countLimit": 5}}}"#) { file in
            #expect(
                throws: ServerConfigurationError(
                    "'pipeline.memory.countLimit' is set by the server; use the top-level resultMemoryBytes (the server keeps encoded results, not pixels) instead"
                )
            ) { try ServerConfiguration(configFile: file) }
        }
        try withConfigFile(#"{"pipeline": {"memory": {"costLimit": 4096}}}"#) { file in
            let configuration = try ServerConfiguration(configFile: file)
            #expect(configuration.pipeline.memory.costLimit == 4096)
        }
    }

    @Test func configFileReadsKnownFieldsAndRefusesUnknownAndMovedOnes() throws {
        try withConfigFile(
            #"{"presets": {"thumb": "rs:fill:300:300"}, "presetsOnly": true, "pipeline": {"decodingLimits": {"maxPixels": 1000}}}"#
        ) { file in
            let configuration = try ServerConfiguration(configFile: file)
            #expect(configuration.presets == ["thumb": "rs:fill:300:300"])
            #expect(configuration.presetsOnly && configuration.pipeline.decodingLimits.maxPixels == 1000)
        }
        try withConfigFile(#"{"maxSourcePixel": 1000}"#) { file in
            #expect {
                try ServerConfiguration(configFile: file)
            } throws: { error in
                "\(error)".hasPrefix("unknown field 'maxSourcePixel' in the config file; known: host, port")
            }
        }
        try withConfigFile(#"{"maxSourcePixels": 1000}"#) { file in
            #expect(
                throws: ServerConfigurationError(
                    "'maxSourcePixels' in the config file is now 'pipeline.decodingLimits.maxPixels'")
            ) { try ServerConfiguration(configFile: file) }
        }
        try withConfigFile(#"{"maxQueue": "many"}"#) { file in
            #expect(throws: ServerConfigurationError("'maxQueue' in the config file: many is not a whole number")) {
                try ServerConfiguration(configFile: file)
            }
        }
    }
}
