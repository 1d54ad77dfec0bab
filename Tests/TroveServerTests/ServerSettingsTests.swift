import Foundation
import Testing
import Trove
import TroveServer

@Suite struct ServerSettingsTests {
    @Test func laterLayersWinAndUnsetFieldsKeepEarlierOnes() throws {
        var file = ServerSettings()
        file.port = 9000
        file.keys = ["aa"]
        file.salts = ["bb"]
        file.maxQueue = 3
        let environment = try ServerSettings(environment: [
            "TROVE_PORT": "9100", "TROVE_ALLOWED_SOURCES": "https://a.example/, https://b.example/"
        ])
        var flags = ServerSettings()
        flags.port = 0
        let configuration = try ServerConfiguration(layers: [file, environment, flags])
        #expect(configuration.port == 0)
        #expect(configuration.keys == ["aa"] && configuration.salts == ["bb"])
        #expect(configuration.maxQueue == 3)
        #expect(configuration.allowedSources == ["https://a.example/", "https://b.example/"])
        #expect(configuration.requiresSignature)
    }

    @Test func badValuesAreNamed() throws {
        #expect(throws: ServerConfigurationError("TROVE_PORT=eighty is not a whole number")) {
            try ServerSettings(environment: ["TROVE_PORT": "eighty"])
        }
        #expect(
            throws: ServerConfigurationError("TROVE_ALLOW_LOOPBACK_SOURCES=maybe is not a switch; use true or false")
        ) {
            try ServerSettings(environment: ["TROVE_ALLOW_LOOPBACK_SOURCES": "maybe"])
        }
        var settings = ServerSettings()
        settings.maxConcurrency = 0
        #expect(throws: ServerConfigurationError("maxConcurrency must be more than 0, not 0")) {
            try ServerConfiguration(layers: [settings])
        }
    }

    @Test func resultAndRequestLimitsAndTheReducingGapComeFromEveryLayer() throws {
        let defaults = ServerConfiguration()
        #expect(defaults.maxResultDimension == 8192 && defaults.maxRequests == 1024 && defaults.reducingGap == 1)
        let environment = try ServerSettings(environment: [
            "TROVE_MAX_RESULT_DIMENSION": "4000", "TROVE_MAX_REQUESTS": "50", "TROVE_REDUCING_GAP": "2.5"
        ])
        let configuration = try ServerConfiguration(layers: [environment])
        #expect(configuration.maxResultDimension == 4000)
        #expect(configuration.maxRequests == 50)
        #expect(configuration.reducingGap == 2.5)
        #expect(throws: ServerConfigurationError("TROVE_REDUCING_GAP=wide is not a number")) {
            try ServerSettings(environment: ["TROVE_REDUCING_GAP": "wide"])
        }
        var below = ServerSettings()
        below.reducingGap = 0.5
        #expect(
            throws: ServerConfigurationError("reducingGap must be 1 or more (1 reduces to the output size), not 0.5")
        ) { try ServerConfiguration(layers: [below]) }
        var none = ServerSettings()
        none.maxResultDimension = 0
        #expect(throws: ServerConfigurationError("maxResultDimension must be more than 0, not 0")) {
            try ServerConfiguration(layers: [none])
        }
    }

    @Test func theConfigFileCarriesThePipelinesOwnSettings() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("serve.json")
        try Data(
            #"{"maxQueue": 4, "pipeline": {"hasher": "md5", "disk": {"byteLimit": 1048576}, "retryPolicy": {"maxRetries": 0}}}"#
                .utf8
        ).write(to: file)
        var configuration = try ServerConfiguration(layers: [try ServerSettings(contentsOf: file)])
        configuration.cacheDirectory = directory.appendingPathComponent("cache")
        #expect(configuration.maxQueue == 4)
        #expect(configuration.pipeline.hasher == "md5" && configuration.pipeline.disk.byteLimit == 1 << 20)
        // The server builds its pipeline on them, with its own settings on top.
        let server = try ImageProxyServer(configuration: configuration, registry: .standard)
        #expect(server.pipeline.configuration.hasher == "md5")
        #expect(server.pipeline.configuration.retryPolicy.maxRetries == 0)
        #expect(server.pipeline.configuration.disk.byteLimit == 1 << 20)
        #expect(server.pipeline.configuration.memory.countLimit == 0)
        #expect(server.pipeline.configuration.cacheDirectory?.path == directory.appendingPathComponent("cache").path)

        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"{"pipeline": {"hasherr": "md5"}}"#.utf8).write(to: bad)
        #expect {
            try ServerSettings(contentsOf: bad)
        } throws: { error in
            "\(error)".hasPrefix("config file \(bad.path): pipeline: unknown field 'hasherr'; known: cacheDirectory")
        }
        // A pipeline key the server sets itself would be ignored in silence: refused, naming the setting to use.
        let owned = directory.appendingPathComponent("owned.json")
        try Data(#"{"pipeline": {"hasher": "md5", "scheduler": {"maxConcurrent": 2}}}"#.utf8).write(to: owned)
        #expect(
            throws: ServerConfigurationError(
                "'pipeline.scheduler' is set by the server; use the top-level maxConcurrency and maxQueue instead")
        ) {
            try ServerSettings(contentsOf: owned)
        }
        // A nested field the server owns is refused by its path; its siblings are the user's to set.
        let nested = directory.appendingPathComponent("nested.json")
        try Data(#"{"pipeline": {"memory": {"countLimit": 5}}}"#.utf8).write(to: nested)
        #expect(
            throws: ServerConfigurationError(
                "'pipeline.memory.countLimit' is set by the server; use the top-level resultMemoryBytes (the server keeps encoded results, not pixels) instead"
            )
        ) {
            try ServerSettings(contentsOf: nested)
        }
        let sibling = directory.appendingPathComponent("sibling.json")
        try Data(#"{"pipeline": {"memory": {"costLimit": 4096}}}"#.utf8).write(to: sibling)
        #expect(try ServerSettings(contentsOf: sibling).pipeline?.memory.costLimit == 4096)
    }

    @Test func configFileReadsKnownFieldsAndRefusesUnknownOnes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json")
        try Data(#"{"presets": {"thumb": "rs:fill:300:300"}, "presetsOnly": true, "maxSourcePixels": 1000}"#.utf8)
            .write(to: good)
        let settings = try ServerSettings(contentsOf: good)
        #expect(settings.presets == ["thumb": "rs:fill:300:300"])
        #expect(settings.presetsOnly == true && settings.maxSourcePixels == 1000)

        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"{"maxSourcePixel": 1000}"#.utf8).write(to: bad)
        #expect {
            try ServerSettings(contentsOf: bad)
        } throws: { error in
            "\(error)".hasPrefix("unknown field 'maxSourcePixel' in the config file; known: host, port")
        }
    }
}
