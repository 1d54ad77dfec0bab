import Foundation
import Testing
import Trove
import TroveTestSupport

/// `PipelineConfiguration` as JSON: a partial file changes only what it names, every setting round-trips,
/// and a misspelt key or a wrong type is an error that names it.
@Suite struct ConfigurationFileTests {
    func decode(_ json: String) throws -> PipelineConfiguration {
        try JSONDecoder().decode(PipelineConfiguration.self, from: Data(json.utf8))
    }

    @Test func aPartialFileSetsWhatItNamesAndKeepsTheDefaults() throws {
        let configuration = try decode(
            """
            {"disk": {"byteLimit": 1048576, "countLimit": 10, "maxAge": 3600, "payloadVerification": "everyRead",
                      "fsync": true, "lowWaterFraction": 0.5, "writeQueueByteLimit": 4096, "staleRetention": 60},
             "memory": {"countLimit": 50, "defaultTTL": 90},
             "scheduler": {"maxPerHost": 2}, "retryPolicy": {"maxRetries": 0},
             "decodingLimits": {"maxPixels": 1000000}, "defaultFreshness": null, "hasher": "md5"}
            """)
        #expect(configuration.disk.byteLimit == 1 << 20 && configuration.disk.countLimit == 10)
        #expect(configuration.memory.countLimit == 50 && configuration.memory.defaultTTL == .seconds(90))
        #expect(configuration.memory.maxEntryCostFraction == 0.1)
        #expect(configuration.memory.costLimit == MemoryCacheConfiguration.defaultCostLimit)
        #expect(configuration.disk.maxAge == .seconds(3600) && configuration.disk.staleRetention == .seconds(60))
        #expect(configuration.disk.payloadVerification == .everyRead && configuration.disk.fsync)
        #expect(configuration.disk.lowWaterFraction == 0.5 && configuration.disk.compressionLevel == nil)
        #expect(configuration.disk.writeQueueByteLimit == 4096)
        #expect(PipelineConfiguration().disk.writeQueueByteLimit == 64 << 20)
        #expect(configuration.scheduler.maxPerHost == 2 && configuration.scheduler.maxConcurrent == 6)
        #expect(configuration.retryPolicy.maxRetries == 0)
        #expect(configuration.decodingLimits.maxPixels == 1_000_000 && configuration.decodingLimits.maxFrames == 1000)
        #expect(configuration.hasher == "md5" && configuration.memoryEviction == "lru")
        #expect(configuration.fetchTimeout == .seconds(15))
        #expect(configuration.cacheDirectory == PipelineConfiguration.defaultCacheDirectory)
    }

    @Test func theDiskCacheGetsTheNestedSettingsAndKeepsStaleCopiesAsLongAsTheyMayBeDelivered() throws {
        try withTemporaryDirectorySync { directory in
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.disk.byteLimit = 3 << 20
            configuration.disk.countLimit = 9
            configuration.disk.payloadVerification = .everyRead
            configuration.staleIfErrorBound = .seconds(120)
            let disk = try #require(try configuration.makeDiskCache(registry: .standard))
            #expect(disk.configuration.byteLimit == 3 << 20 && disk.configuration.countLimit == 9)
            #expect(disk.configuration.payloadVerification == .everyRead)
            // The disk's own retention is shorter than the pipeline's stale-if-error bound: the bound wins.
            #expect(disk.configuration.staleRetention == .seconds(120))
            // A longer retention (for revalidating old copies) is kept.
            configuration.disk.staleRetention = .seconds(3600)
            let longer = try #require(try configuration.makeDiskCache(registry: .standard))
            #expect(longer.configuration.staleRetention == .seconds(3600))
        }
    }

    @Test func theCacheKeyRuleIsReadAndAMisspeltFieldIsNamed() throws {
        let configuration = try decode(#"{"cacheKeyRule": {"droppedQueryParameters": ["Signature", "Expires"]}}"#)
        #expect(configuration.cacheKeyRule.droppedQueryParameters == ["Signature", "Expires"])
        #expect(!configuration.cacheKeyRule.sortsQueryParameters)
        #expect(try decode("{}").cacheKeyRule.isIdentity)
        #expect {
            try decode(#"{"cacheKeyRule": {"dropQuery": ["sig"]}}"#)
        } throws: { error in
            "\(error)".contains("'cacheKeyRule.dropQuery'") && "\(error)".contains("droppedQueryParameters")
        }
    }

    @Test func cookieSeedsAndPressureSettingsAreCheckedAsRead() throws {
        let configuration = try decode(
            #"{"cookies": {"http://127.0.0.1:8080/": ["a=1"]}, "memoryPressure": {"isEnabled": false}}"#)
        #expect(configuration.cookies == ["http://127.0.0.1:8080/": ["a=1"]])
        #expect(!configuration.memoryPressure.isEnabled && configuration.memoryPressure.pollInterval == .seconds(2))
        #expect(try decode("{}").cookies == nil)
        #expect {
            try decode(#"{"cookies": {"example.com": ["a=1"]}}"#)
        } throws: { error in
            "\(error)".contains("'cookies' has a seed that cannot be used") && "\(error)".contains("'example.com'")
        }
        #expect {
            try decode(#"{"memoryPressure": {"lowWaterFraction": 2}}"#)
        } throws: { error in
            "\(error)".contains("'memoryPressure.lowWaterFraction' must be from 0.0 to 1.0, not 2.0")
        }
    }

    @Test func pluginNamesAreTypedConstantsOrLiteralsAndPlainStringsInJSON() throws {
        var configuration = PipelineConfiguration.memoryOnly
        configuration.hasher = .md5
        configuration.memoryEviction = .s3fifo
        configuration.diskEviction = "djb2-aware"  // a plugin's, as a literal
        configuration.compressor = .zlib
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(configuration)) as? [String: Any])
        #expect(object["hasher"] as? String == "md5" && object["memoryEviction"] as? String == "s3fifo")
        #expect(object["diskEviction"] as? String == "djb2-aware" && object["compressor"] as? String == "zlib")
        let decoded = try decode(#"{"hasher": "djb2", "compressor": "none"}"#)
        #expect(decoded.hasher == HasherName("djb2") && decoded.hasher.rawValue == "djb2")
        #expect(decoded.compressor == .none && decoded.memoryEviction == .lru)
        #expect(throws: DecodingError.self) { try decode(#"{"hasher": 256}"#) }
    }

    @Test func sharedCacheIsOneURLOrAStack() throws {
        let stack = ["redis://127.0.0.1:6390/2", "s3://bucket/results?endpoint=http://127.0.0.1:8333"]
        let decoded = try decode(#"{"sharedCache": ["\#(stack[0])", "\#(stack[1])"]}"#)
        #expect(decoded.sharedCaches.map(\.absoluteString) == stack && decoded.sharedCache?.absoluteString == stack[0])
        let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(decoded)) as? [String: Any]
        #expect(object?["sharedCache"] as? [String] == stack)
        #expect(try decode(#"{"sharedCache": "\#(stack[0])"}"#).sharedCaches.count == 1)
        #expect(try decode(#"{"sharedCache": null}"#).sharedCaches.isEmpty)
        #expect(throws: TroveError.self) { try decode(#"{"sharedCache": ["redis://h:1", "no url"]}"#) }
        var configuration = PipelineConfiguration.memoryOnly
        configuration.sharedCaches = stack.map { URL(string: $0)! }
        configuration.sharedCache = nil
        #expect(configuration.sharedCaches.isEmpty)
    }

    @Test func everySettingRoundTrips() throws {
        var configuration = PipelineConfiguration(cacheDirectory: URL(fileURLWithPath: "/tmp/trove-x"))
        configuration.compressor = "zlib"
        configuration.disk.compressionLevel = 3
        configuration.defaultFreshness = .milliseconds(1500)
        configuration.headers = ["User-Agent": "trove-test"]
        configuration.encodingOptions = EncodingOptions(quality: 0.7, compressionLevel: 2, lossless: true, speed: 4)
        configuration.scheduler = FetchSchedulerConfiguration(maxConcurrent: 3, maxPerHost: 1, order: .lifo)
        configuration.sharedCache = URL(string: "redis://127.0.0.1:6390/2")
        configuration.sharedTierOptions.keyPrefix = "fleet:"
        configuration.sharedTierPolicy.leaseTTL = nil
        configuration.sharedTierPolicy.sharesResults = false
        configuration.shrinkOnLoadReducingGap = 1
        configuration.disk.writeQueueByteLimit = 1 << 20
        configuration.disk.countLimit = 77
        configuration.previewInterval = .milliseconds(250)
        configuration.memory.defaultTTL = .milliseconds(2500)
        configuration.memory.costLimit = 12345
        configuration.tls = TLSOptions(caBundle: "/etc/ssl/ours.pem", insecureHosts: ["dev.local", "10.0.0.5"])
        configuration.cacheKeyRule = CacheKeyRule(
            droppedQueryParameters: ["sig", "X-Amz-*"], sortsQueryParameters: true)
        configuration.cookies = ["https://example.com/": ["session=abc; Path=/", "theme=dark"]]
        configuration.memoryPressure.pollInterval = .milliseconds(500)
        configuration.memoryPressure.residentFraction = nil
        configuration.memoryPressure.lowWaterFraction = 0.25
        configuration.decodeMemoryBudget = 256 << 20
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let first = try encoder.encode(configuration)
        let decoded = try JSONDecoder().decode(PipelineConfiguration.self, from: first)
        #expect(try encoder.encode(decoded) == first)
        #expect(decoded.cacheDirectory?.path == "/tmp/trove-x" && decoded.disk.compressionLevel == 3)
        #expect(decoded.defaultFreshness == .milliseconds(1500) && decoded.sharedTierPolicy.leaseTTL == nil)
        #expect(!decoded.sharedTierPolicy.sharesResults && PipelineConfiguration().sharedTierPolicy.sharesResults)
        #expect(decoded.scheduler.order == .lifo && decoded.encodingOptions.speed == 4)
        #expect(decoded.sharedCache?.absoluteString == "redis://127.0.0.1:6390/2")
        let object = try #require(try JSONSerialization.jsonObject(with: first) as? [String: Any])
        let disk = try #require(object["disk"] as? [String: Any])
        let memory = try #require(object["memory"] as? [String: Any])
        #expect(disk["maxAge"] as? Double == 604_800 && disk["countLimit"] as? Int == 77)
        #expect(decoded.disk.writeQueueByteLimit == 1 << 20 && disk["writeQueueByteLimit"] as? Int == 1 << 20)
        #expect(decoded.disk.countLimit == 77 && decoded.memory.costLimit == 12345)
        #expect(decoded.previewInterval == .milliseconds(250) && object["previewInterval"] as? Double == 0.25)
        #expect(memory["defaultTTL"] as? Double == 2.5 && decoded.memory.defaultTTL == .milliseconds(2500))
        #expect(decoded.tls == configuration.tls)
        #expect(decoded.cacheKeyRule == configuration.cacheKeyRule)
        #expect(decoded.cookies == configuration.cookies)
        #expect(decoded.memoryPressure.pollInterval == .milliseconds(500))
        #expect(decoded.memoryPressure.residentFraction == nil && decoded.memoryPressure.lowWaterFraction == 0.25)
        #expect(decoded.memoryPressure.stallThreshold == 10 && decoded.memoryPressure.isEnabled)
        let rule = try #require(object["cacheKeyRule"] as? [String: Any])
        #expect(rule["droppedQueryParameters"] as? [String] == ["X-Amz-*", "sig"])
        #expect(rule["sortsQueryParameters"] as? Bool == true)
        #expect(decoded.decodeMemoryBudget == 256 << 20 && object["decodeMemoryBudget"] as? Int == 256 << 20)
        let tls = try #require(object["tls"] as? [String: Any])
        #expect(tls["caBundle"] as? String == "/etc/ssl/ours.pem")
        #expect(tls["insecureHosts"] as? [String] == ["10.0.0.5", "dev.local"])
        // Unset, they are written as null and read back as unset.
        let unset = try encoder.encode(PipelineConfiguration())
        let unsetObject = try #require(try JSONSerialization.jsonObject(with: unset) as? [String: Any])
        #expect((unsetObject["memory"] as? [String: Any])?["defaultTTL"] is NSNull)
        #expect((unsetObject["disk"] as? [String: Any])?["countLimit"] is NSNull)
        let unsetDecoded = try JSONDecoder().decode(PipelineConfiguration.self, from: unset)
        #expect(unsetDecoded.memory.defaultTTL == nil && unsetDecoded.disk.countLimit == nil)
        #expect(unsetObject["decodeMemoryBudget"] is NSNull && unsetDecoded.decodeMemoryBudget == nil)
        #expect(
            throws: TroveError.invalidConfiguration(
                "'decodeMemoryBudget' must be a number of bytes above 0, or null for no budget")
        ) {
            _ = try decode(#"{"decodeMemoryBudget": 0}"#)
        }
    }

    @Test(arguments: [
        (
            #"{"diskBytelimit": 1}"#,
            "unknown field 'diskBytelimit'; known: cacheDirectory, keepsOriginalsOnDisk, hasher,"
        ),
        (#"{"disk": {"bytelimit": 1}}"#, "unknown field 'disk.bytelimit'; known: byteLimit, countLimit,"),
        (#"{"diskByteLimit": 1}"#, "'diskByteLimit' is now 'disk.byteLimit'"),
        (#"{"memoryMaxAge": 60}"#, "'memoryMaxAge' is now 'memory.defaultTTL'"),
        (#"{"disk": {"byteLimit": 0}}"#, "'disk.byteLimit' must be 1 or more, not 0"),
        (#"{"scheduler": {"maxConcurent": 2}}"#, "unknown field 'scheduler.maxConcurent'; known: maxConcurrent,"),
        (#"{"scheduler": {"maxConcurrent": "six"}}"#, "'scheduler.maxConcurrent' must be a number"),
        (#"{"disk": {"maxAge": -5}}"#, "'disk.maxAge' must be a number of seconds, 0 or more, not -5.0"),
        (#"{"memory": {"defaultTTL": -1}}"#, "'memory.defaultTTL' must be a number of seconds, 0 or more, not -1.0"),
        (
            #"{"disk": {"payloadVerification": "sometimes"}}"#,
            "'disk.payloadVerification' is sometimes; use everyRead or whenFileChanges"
        ),
        (#"{"scheduler": {"maxConcurrent": 0}}"#, "'scheduler.maxConcurrent' must be 1 or more, not 0"),
        (#"{"shrinkOnLoadReducingGap": 0.5}"#, "'shrinkOnLoadReducingGap' must be 1.0 or more, not 0.5"),
        (
            #"{"memory": {"maxEntryCostFraction": -1}}"#,
            "'memory.maxEntryCostFraction' must be from 0.0 to 1.0, not -1.0"
        ),
        (#"{"encodingOptions": {"quality": 85}}"#, "'encodingOptions.quality' must be from 0.0 to 1.0, not 85.0"),
        (#"{"tls": {"verify": false}}"#, "unknown field 'tls.verify'; known: caBundle, insecureHosts"),
        (#"{"tls": {"insecureHosts": "dev.local"}}"#, "'tls.insecureHosts' must be a list of strings")
    ])
    func aBadFileIsAnErrorNamingWhatIsWrong(json: String, message: String) throws {
        try withTemporaryDirectorySync { directory in
            let file = directory.appendingPathComponent("trove.json")
            try Data(json.utf8).write(to: file)
            #expect {
                try PipelineConfiguration(contentsOf: file)
            } throws: { error in
                guard case let .invalidConfiguration(reason)? = error as? TroveError else { return false }
                return reason.hasPrefix("\(file.path): \(message)")
            }
        }
    }

    @Test func tlsHostsAreReadWithoutCaseOrBracketsAndTheRestKeepsTheSystemTrustStore() throws {
        let configuration = try decode(#"{"tls": {"insecureHosts": ["Dev.Local", "[::1]"]}}"#)
        #expect(configuration.tls.insecureHosts == ["dev.local", "::1"])
        #expect(configuration.tls.caBundle == nil)
        #expect(!configuration.tls.verifiesCertificate(of: "DEV.local"))
        #expect(!configuration.tls.verifiesCertificate(of: "[::1]"))
        #expect(configuration.tls.verifiesCertificate(of: "prod.example"))
        #expect(PipelineConfiguration().tls.isDefault)
    }

    /// A directory for one synchronous test body, removed after it.
    func withTemporaryDirectorySync(_ body: (URL) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        try withExtendedLifetime(directory) { try body(directory.url) }
    }
}
