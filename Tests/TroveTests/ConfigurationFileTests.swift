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
            {"diskByteLimit": 1048576, "diskCountLimit": 10, "memoryCountLimit": 50, "diskMaxAge": 3600,
             "payloadVerification": "everyRead", "diskFsync": true, "diskLowWaterFraction": 0.5,
             "diskWriteQueueByteLimit": 4096, "scheduler": {"maxPerHost": 2}, "retryPolicy": {"maxRetries": 0},
             "decodingLimits": {"maxPixels": 1000000}, "defaultFreshness": null, "hasher": "md5",
             "memoryMaxAge": 90}
            """)
        #expect(configuration.diskByteLimit == 1 << 20 && configuration.diskCountLimit == 10)
        #expect(configuration.memoryCountLimit == 50 && configuration.memoryMaxAge == .seconds(90))
        #expect(configuration.diskMaxAge == .seconds(3600))
        #expect(configuration.payloadVerification == .everyRead && configuration.diskFsync)
        #expect(configuration.diskLowWaterFraction == 0.5)
        #expect(configuration.diskWriteQueueByteLimit == 4096)
        #expect(PipelineConfiguration().diskWriteQueueByteLimit == 64 << 20)
        #expect(configuration.scheduler.maxPerHost == 2 && configuration.scheduler.maxConcurrent == 6)
        #expect(configuration.retryPolicy.maxRetries == 0)
        #expect(configuration.decodingLimits.maxPixels == 1_000_000 && configuration.decodingLimits.maxFrames == 1000)
        #expect(configuration.hasher == "md5" && configuration.memoryEviction == "lru")
        #expect(configuration.fetchTimeout == .seconds(15))
        #expect(configuration.cacheDirectory == PipelineConfiguration.defaultCacheDirectory)
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

    @Test func everySettingRoundTrips() throws {
        var configuration = PipelineConfiguration(cacheDirectory: URL(fileURLWithPath: "/tmp/trove-x"))
        configuration.compressor = "zlib"
        configuration.compressionLevel = 3
        configuration.defaultFreshness = .milliseconds(1500)
        configuration.headers = ["User-Agent": "trove-test"]
        configuration.encodingOptions = EncodingOptions(quality: 0.7, compressionLevel: 2, lossless: true, speed: 4)
        configuration.scheduler = FetchSchedulerConfiguration(maxConcurrent: 3, maxPerHost: 1, order: .lifo)
        configuration.sharedCache = URL(string: "redis://127.0.0.1:6390/2")
        configuration.sharedTierOptions.keyPrefix = "fleet:"
        configuration.sharedTierPolicy.leaseTTL = nil
        configuration.shrinkOnLoadReducingGap = 1
        configuration.diskWriteQueueByteLimit = 1 << 20
        configuration.previewInterval = .milliseconds(250)
        configuration.memoryMaxAge = .milliseconds(2500)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let first = try encoder.encode(configuration)
        let decoded = try JSONDecoder().decode(PipelineConfiguration.self, from: first)
        #expect(try encoder.encode(decoded) == first)
        #expect(decoded.cacheDirectory?.path == "/tmp/trove-x" && decoded.compressionLevel == 3)
        #expect(decoded.defaultFreshness == .milliseconds(1500) && decoded.sharedTierPolicy.leaseTTL == nil)
        #expect(decoded.scheduler.order == .lifo && decoded.encodingOptions.speed == 4)
        #expect(decoded.sharedCache?.absoluteString == "redis://127.0.0.1:6390/2")
        let object = try #require(try JSONSerialization.jsonObject(with: first) as? [String: Any])
        #expect(object["diskMaxAge"] as? Double == 604_800)
        #expect(decoded.diskWriteQueueByteLimit == 1 << 20 && object["diskWriteQueueByteLimit"] as? Int == 1 << 20)
        #expect(decoded.previewInterval == .milliseconds(250) && object["previewInterval"] as? Double == 0.25)
        #expect(object["memoryMaxAge"] as? Double == 2.5 && decoded.memoryMaxAge == .milliseconds(2500))
        // Unset, it is written as null and read back as unset.
        let unset = try encoder.encode(PipelineConfiguration())
        #expect(try JSONDecoder().decode(PipelineConfiguration.self, from: unset).memoryMaxAge == nil)
    }

    @Test(arguments: [
        (#"{"diskBytelimit": 1}"#, "unknown field 'diskBytelimit'; known: cacheDirectory, hasher,"),
        (#"{"scheduler": {"maxConcurent": 2}}"#, "unknown field 'scheduler.maxConcurent'; known: maxConcurrent,"),
        (#"{"scheduler": {"maxConcurrent": "six"}}"#, "'scheduler.maxConcurrent' must be a number"),
        (#"{"diskMaxAge": -5}"#, "'diskMaxAge' must be a number of seconds, 0 or more, not -5.0"),
        (#"{"memoryMaxAge": -1}"#, "'memoryMaxAge' must be a number of seconds, 0 or more, not -1.0"),
        (
            #"{"payloadVerification": "sometimes"}"#,
            "'payloadVerification' is sometimes; use everyRead or whenFileChanges"
        ),
        (#"{"scheduler": {"maxConcurrent": 0}}"#, "'scheduler.maxConcurrent' must be 1 or more, not 0"),
        (#"{"shrinkOnLoadReducingGap": 0.5}"#, "'shrinkOnLoadReducingGap' must be 1.0 or more, not 0.5"),
        (#"{"memoryMaxEntryCostFraction": -1}"#, "'memoryMaxEntryCostFraction' must be from 0.0 to 1.0, not -1.0"),
        (#"{"encodingOptions": {"quality": 85}}"#, "'encodingOptions.quality' must be from 0.0 to 1.0, not 85.0")
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

    /// A directory for one synchronous test body, removed after it.
    func withTemporaryDirectorySync(_ body: (URL) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        try withExtendedLifetime(directory) { try body(directory.url) }
    }
}
