import Foundation
import TroveCore
import TroveDiskCache
import TroveFetcher

/// The configuration as JSON (`--config FILE` in the CLI): the property names as keys, durations in
/// seconds, the cache directory and shared tier as strings, nested settings as objects (`memory`, `disk`,
/// `scheduler`, `retryPolicy`, `tls`, ... with their own property names: `{"disk": {"byteLimit": 1048576}}`). A
/// flat key of earlier versions (`diskByteLimit`) is refused with its new path. A key left out
/// keeps its default, so a file says only what it changes (no `cacheDirectory` means the default directory;
/// `"cacheDirectory": null` means no disk cache); an unknown key, or a value of the wrong type,
/// is an error that names it. `cookies` seeds an in-memory jar. `delegate`, `cookieStore`, `metricsFactory`, `tracer`,
/// `memoryPressure.source` and `logger` are code (or state),
/// not configuration, and are neither read nor written.
extension PipelineConfiguration: Codable {
    /// The defaults (or the configuration under `decodingBase` in the decoder's `userInfo`: a server decodes
    /// over its own defaults), changed by each key the JSON object has; throws `invalidConfiguration` for an unknown
    /// key or a value out of range, and `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self = decoder.userInfo[Self.decodingBase] as? PipelineConfiguration ?? PipelineConfiguration()
        let json = try ConfigurationObject(decoder, known: Self.keys, moved: Self.movedKeys)
        if let path = try json.value(String?.self, "cacheDirectory") {
            cacheDirectory = path.map { URL(fileURLWithPath: $0) }
        }
        try json.set(&keepsOriginalsOnDisk, "keepsOriginalsOnDisk")
        try json.set(&hasher, "hasher")
        try json.set(&memoryEviction, "memoryEviction")
        try json.set(&diskEviction, "diskEviction")
        try json.set(&compressor, "compressor")
        if let memory = try json.object("memory", known: Self.memoryKeys) {
            try memory.set(&self.memory.costLimit, "costLimit", atLeast: 0)
            try memory.set(&self.memory.countLimit, "countLimit", atLeast: 0)
            try memory.set(&self.memory.maxEntryCostFraction, "maxEntryCostFraction", in: 0...1)
            try memory.setSeconds(&self.memory.defaultTTL, "defaultTTL")
        }
        if let disk = try json.object("disk", known: Self.diskKeys) {
            try decodeDisk(disk)
        }
        if let pressure = try json.object("memoryPressure", known: Self.memoryPressureKeys) {
            try pressure.set(&memoryPressure.isEnabled, "isEnabled")
            try pressure.setSeconds(&memoryPressure.pollInterval, "pollInterval")
            if memoryPressure.pollInterval < .milliseconds(10) {
                throw pressure.invalid("pollInterval", "must be at least 0.01 seconds")
            }
            try pressure.set(&memoryPressure.lowWaterFraction, "lowWaterFraction", in: 0...1)
            try pressure.set(&memoryPressure.residentFraction, "residentFraction")
            try pressure.set(&memoryPressure.stallThreshold, "stallThreshold")
        }
        try json.setSeconds(&defaultFreshness, "defaultFreshness")
        try json.set(&heuristicFreshness, "heuristicFreshness")
        try json.set(&ignoresCacheHeaders, "ignoresCacheHeaders")
        try json.setSeconds(&staleIfErrorBound, "staleIfErrorBound")
        try json.setSeconds(&fetchTimeout, "fetchTimeout")
        try json.setSeconds(&requestDeadline, "requestDeadline")
        try json.set(&maxBytes, "maxBytes", atLeast: 1)
        if let limits = try json.object("decodingLimits", known: ["maxPixels", "maxDecodedBytes", "maxFrames"]) {
            try limits.set(&decodingLimits.maxPixels, "maxPixels", atLeast: 1)
            try limits.set(&decodingLimits.maxDecodedBytes, "maxDecodedBytes", atLeast: 1)
            try limits.set(&decodingLimits.maxFrames, "maxFrames", atLeast: 1)
        }
        if let budget = try json.value(Int?.self, "decodeMemoryBudget") {
            guard (budget ?? 1) > 0 else {
                throw json.invalid("decodeMemoryBudget", "must be a number of bytes above 0, or null for no budget")
            }
            decodeMemoryBudget = budget
        }
        try json.set(&headers, "headers")
        if let cookies = try json.value([String: [String]]?.self, "cookies") {
            do {
                try cookies.map(Self.checkCookies)
            } catch let error as TroveError {
                throw json.invalid("cookies", "has a seed that cannot be used: \(error.reason)")
            }
            self.cookies = cookies
        }
        if let rule = try json.object("cacheKeyRule", known: ["droppedQueryParameters", "sortsQueryParameters"]) {
            try rule.set(&cacheKeyRule.droppedQueryParameters, "droppedQueryParameters")
            try rule.set(&cacheKeyRule.sortsQueryParameters, "sortsQueryParameters")
        }
        if let encoding = try json.object(
            "encodingOptions", known: ["quality", "compressionLevel", "lossless", "speed"])
        {
            try encoding.set(&encodingOptions.quality, "quality", in: 0...1)
            try encoding.set(&encodingOptions.compressionLevel, "compressionLevel")
            try encoding.set(&encodingOptions.lossless, "lossless")
            try encoding.set(&encodingOptions.speed, "speed")
        }
        if let scheduler = try json.object("scheduler", known: ["maxConcurrent", "maxPerHost", "order"]) {
            // At least one, or every fetch would wait for ever.
            try scheduler.set(&self.scheduler.maxConcurrent, "maxConcurrent", atLeast: 1)
            try scheduler.set(&self.scheduler.maxPerHost, "maxPerHost", atLeast: 1)
            try scheduler.set(&self.scheduler.order, "order")
        }
        if let retry = try json.object("retryPolicy", known: ["maxRetries", "baseDelay", "maxDelay", "jitter"]) {
            try retry.set(&retryPolicy.maxRetries, "maxRetries", atLeast: 0)
            try retry.setSeconds(&retryPolicy.baseDelay, "baseDelay")
            try retry.setSeconds(&retryPolicy.maxDelay, "maxDelay")
            try retry.set(&retryPolicy.jitter, "jitter")
        }
        try json.setSeconds(&failedURLTTL, "failedURLTTL")
        try json.setSeconds(&crashGuard, "crashGuard")
        // One URL, or a list of them (a stack, top first).
        var texts: [String]?
        if let list = try? json.value([String]?.self, "sharedCache") {
            texts = list ?? []
        } else if let text = try json.value(String?.self, "sharedCache") {
            texts = text.map { [$0] } ?? []
        }
        if let texts {
            sharedCaches = try texts.map { text in
                guard let url = URL(string: text), url.scheme != nil else {
                    throw json.invalid("sharedCache", "is not a URL; give redis://host:port[/db] or s3://bucket")
                }
                return url
            }
        }
        try decodeRest(json)
    }

    private mutating func decodeDisk(_ json: ConfigurationObject) throws {
        try json.set(&disk.byteLimit, "byteLimit", atLeast: 1)
        try json.set(&disk.countLimit, "countLimit")
        try json.setSeconds(&disk.maxAge, "maxAge")
        try json.set(&disk.compressionLevel, "compressionLevel")
        try json.set(&disk.lowWaterFraction, "lowWaterFraction", in: 0...1)
        try json.set(&disk.fsync, "fsync")
        if let name = try json.value(String.self, "payloadVerification") {
            guard let value = PayloadVerification(rawValue: name) else {
                throw json.invalid("payloadVerification", "is \(name); use everyRead or whenFileChanges")
            }
            disk.payloadVerification = value
        }
        try json.set(&disk.writeQueueByteLimit, "writeQueueByteLimit", atLeast: 1)
        try json.setSeconds(&disk.staleRetention, "staleRetention")
    }

    private mutating func decodeRest(_ json: ConfigurationObject) throws {
        if let options = try json.object(
            "sharedTierOptions",
            known: ["maxValueBytes", "connectTimeout", "commandTimeout", "connections", "keyPrefix"])
        {
            try options.set(&sharedTierOptions.maxValueBytes, "maxValueBytes")
            try options.setSeconds(&sharedTierOptions.connectTimeout, "connectTimeout")
            try options.setSeconds(&sharedTierOptions.commandTimeout, "commandTimeout")
            try options.set(&sharedTierOptions.connections, "connections")
            try options.set(&sharedTierOptions.keyPrefix, "keyPrefix")
        }
        if let policy = try json.object(
            "sharedTierPolicy",
            known: [
                "leaseTTL", "firstPollInterval", "maxPollInterval", "failureThreshold", "cooldown", "warningInterval",
                "sharesResults", "resultLeaseTTL"
            ])
        {
            try policy.setSeconds(&sharedTierPolicy.leaseTTL, "leaseTTL")
            try policy.setSeconds(&sharedTierPolicy.firstPollInterval, "firstPollInterval")
            try policy.setSeconds(&sharedTierPolicy.maxPollInterval, "maxPollInterval")
            try policy.set(&sharedTierPolicy.failureThreshold, "failureThreshold")
            try policy.setSeconds(&sharedTierPolicy.cooldown, "cooldown")
            try policy.setSeconds(&sharedTierPolicy.warningInterval, "warningInterval")
            try policy.set(&sharedTierPolicy.sharesResults, "sharesResults")
            try policy.setSeconds(&sharedTierPolicy.resultLeaseTTL, "resultLeaseTTL")
        }
        // Below 1 a decoder would reduce under the output size, and the result would be upscaled.
        try json.set(&shrinkOnLoadReducingGap, "shrinkOnLoadReducingGap", atLeast: 1)
        try json.setSeconds(&previewInterval, "previewInterval")
        try json.setSeconds(&streamedDecodeGate, "streamedDecodeGate")
        if let tls = try json.object("tls", known: ["caBundle", "insecureHosts"]) {
            try tls.set(&self.tls.caBundle, "caBundle")
            try tls.set(&self.tls.insecureHosts, "insecureHosts")
        }
    }

    /// Every setting, in the form `init(from:)` reads.
    public func encode(to encoder: any Encoder) throws {
        var json = encoder.container(keyedBy: ConfigurationKey.self)
        func put<T: Encodable>(_ value: T, _ key: String) throws { try json.encode(value, forKey: .init(key)) }
        func seconds(_ value: Duration?) -> Double? { value.map(\.timeInterval) }
        try put(cacheDirectory?.path, "cacheDirectory")
        try put(keepsOriginalsOnDisk, "keepsOriginalsOnDisk")
        try put(hasher, "hasher")
        try put(memoryEviction, "memoryEviction")
        try put(diskEviction, "diskEviction")
        try put(compressor, "compressor")
        var memoryJSON = json.nestedContainer(keyedBy: ConfigurationKey.self, forKey: .init("memory"))
        try memoryJSON.encode(memory.costLimit, forKey: .init("costLimit"))
        try memoryJSON.encode(memory.countLimit, forKey: .init("countLimit"))
        try memoryJSON.encode(memory.maxEntryCostFraction, forKey: .init("maxEntryCostFraction"))
        try memoryJSON.encode(seconds(memory.defaultTTL), forKey: .init("defaultTTL"))
        var diskJSON = json.nestedContainer(keyedBy: ConfigurationKey.self, forKey: .init("disk"))
        try diskJSON.encode(disk.byteLimit, forKey: .init("byteLimit"))
        try diskJSON.encode(disk.countLimit, forKey: .init("countLimit"))
        try diskJSON.encode(disk.maxAge.timeInterval, forKey: .init("maxAge"))
        try diskJSON.encode(disk.compressionLevel, forKey: .init("compressionLevel"))
        try diskJSON.encode(disk.lowWaterFraction, forKey: .init("lowWaterFraction"))
        try diskJSON.encode(disk.fsync, forKey: .init("fsync"))
        try diskJSON.encode(disk.payloadVerification.rawValue, forKey: .init("payloadVerification"))
        try diskJSON.encode(disk.writeQueueByteLimit, forKey: .init("writeQueueByteLimit"))
        try diskJSON.encode(disk.staleRetention.timeInterval, forKey: .init("staleRetention"))
        var pressureJSON = json.nestedContainer(keyedBy: ConfigurationKey.self, forKey: .init("memoryPressure"))
        try pressureJSON.encode(memoryPressure.isEnabled, forKey: .init("isEnabled"))
        try pressureJSON.encode(memoryPressure.pollInterval.timeInterval, forKey: .init("pollInterval"))
        try pressureJSON.encode(memoryPressure.lowWaterFraction, forKey: .init("lowWaterFraction"))
        try pressureJSON.encode(memoryPressure.residentFraction, forKey: .init("residentFraction"))
        try pressureJSON.encode(memoryPressure.stallThreshold, forKey: .init("stallThreshold"))
        try put(seconds(defaultFreshness), "defaultFreshness")
        try put(heuristicFreshness, "heuristicFreshness")
        try put(ignoresCacheHeaders, "ignoresCacheHeaders")
        try put(seconds(staleIfErrorBound), "staleIfErrorBound")
        try put(seconds(fetchTimeout), "fetchTimeout")
        try put(seconds(requestDeadline), "requestDeadline")
        try put(maxBytes, "maxBytes")
        try put(
            [
                "maxPixels": decodingLimits.maxPixels, "maxDecodedBytes": decodingLimits.maxDecodedBytes,
                "maxFrames": decodingLimits.maxFrames
            ], "decodingLimits")
        try put(decodeMemoryBudget, "decodeMemoryBudget")
        try put(headers, "headers")
        try put(cookies, "cookies")
        try put(
            ConfigurationObject.KeyRule(
                droppedQueryParameters: cacheKeyRule.droppedQueryParameters.sorted(),
                sortsQueryParameters: cacheKeyRule.sortsQueryParameters), "cacheKeyRule")
        try put(encodingOptions, "encodingOptions")
        try put(
            ConfigurationObject.Scheduler(
                maxConcurrent: scheduler.maxConcurrent, maxPerHost: scheduler.maxPerHost, order: scheduler.order),
            "scheduler")
        try put(
            [
                "maxRetries": Double(retryPolicy.maxRetries), "baseDelay": retryPolicy.baseDelay.timeInterval,
                "maxDelay": retryPolicy.maxDelay.timeInterval, "jitter": retryPolicy.jitter
            ], "retryPolicy")
        try put(seconds(failedURLTTL), "failedURLTTL")
        try put(seconds(crashGuard), "crashGuard")
        if sharedCaches.count > 1 {
            try put(sharedCaches.map(\.absoluteString), "sharedCache")
        } else {
            try put(sharedCache?.absoluteString, "sharedCache")
        }
        try put(
            ConfigurationObject.TierOptions(
                maxValueBytes: sharedTierOptions.maxValueBytes,
                connectTimeout: sharedTierOptions.connectTimeout.timeInterval,
                commandTimeout: sharedTierOptions.commandTimeout.timeInterval,
                connections: sharedTierOptions.connections, keyPrefix: sharedTierOptions.keyPrefix),
            "sharedTierOptions")
        try put(
            ConfigurationObject.TierPolicy(
                leaseTTL: seconds(sharedTierPolicy.leaseTTL),
                firstPollInterval: sharedTierPolicy.firstPollInterval.timeInterval,
                maxPollInterval: sharedTierPolicy.maxPollInterval.timeInterval,
                failureThreshold: sharedTierPolicy.failureThreshold, cooldown: sharedTierPolicy.cooldown.timeInterval,
                warningInterval: sharedTierPolicy.warningInterval.timeInterval,
                sharesResults: sharedTierPolicy.sharesResults,
                resultLeaseTTL: sharedTierPolicy.resultLeaseTTL.timeInterval),
            "sharedTierPolicy")
        try put(shrinkOnLoadReducingGap, "shrinkOnLoadReducingGap")
        try put(seconds(previewInterval), "previewInterval")
        try put(seconds(streamedDecodeGate), "streamedDecodeGate")
        try put(tls, "tls")
    }

    /// Every key the JSON form has, in the order it is written.
    static let keys = [
        "cacheDirectory", "keepsOriginalsOnDisk", "hasher", "memoryEviction", "diskEviction", "compressor", "memory",
        "memoryPressure", "disk",
        "defaultFreshness", "heuristicFreshness", "ignoresCacheHeaders", "staleIfErrorBound", "fetchTimeout",
        "requestDeadline",
        "maxBytes", "decodingLimits", "decodeMemoryBudget", "headers", "cookies", "cacheKeyRule", "encodingOptions",
        "scheduler", "retryPolicy", "failedURLTTL", "crashGuard",
        "sharedCache", "sharedTierOptions", "sharedTierPolicy", "shrinkOnLoadReducingGap", "previewInterval",
        "streamedDecodeGate", "tls"
    ]

    /// The keys of the `memory` object: `MemoryCacheConfiguration`'s properties.
    static let memoryKeys = ["costLimit", "countLimit", "maxEntryCostFraction", "defaultTTL"]

    /// The keys of the `memoryPressure` object: `MemoryPressureOptions`' settings (its `source` is code).
    static let memoryPressureKeys = [
        "isEnabled", "pollInterval", "lowWaterFraction", "residentFraction", "stallThreshold"
    ]

    /// The keys of the `disk` object: `DiskCacheConfiguration`'s properties.
    static let diskKeys = [
        "byteLimit", "countLimit", "maxAge", "compressionLevel", "lowWaterFraction", "fsync", "payloadVerification",
        "writeQueueByteLimit", "staleRetention"
    ]

    /// A `userInfo` key whose value, a `PipelineConfiguration`, is what decoding starts from instead of the
    /// defaults, so a key the JSON leaves out keeps that value.
    package static let decodingBase = CodingUserInfoKey(rawValue: "trove.pipelineConfiguration.base")!

    /// Where the flat keys of earlier versions went, so an old file's error says what to write instead.
    static let movedKeys = [
        "memoryCostLimit": "memory.costLimit", "memoryCountLimit": "memory.countLimit",
        "memoryMaxEntryCostFraction": "memory.maxEntryCostFraction", "memoryMaxAge": "memory.defaultTTL",
        "diskByteLimit": "disk.byteLimit", "diskCountLimit": "disk.countLimit", "diskMaxAge": "disk.maxAge",
        "compressionLevel": "disk.compressionLevel", "diskLowWaterFraction": "disk.lowWaterFraction",
        "diskFsync": "disk.fsync", "payloadVerification": "disk.payloadVerification",
        "diskWriteQueueByteLimit": "disk.writeQueueByteLimit"
    ]

    /// Reads a JSON configuration file; the error names the file and what in it is wrong.
    public init(contentsOf file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw TroveError.invalidConfiguration("cannot read \(file.path): \(error.localizedDescription)")
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch let error as TroveError {
            throw TroveError.invalidConfiguration("\(file.path): \(error.reason)")
        } catch let DecodingError.typeMismatch(type, context) {
            throw TroveError.invalidConfiguration(
                "\(file.path): '\(ConfigurationObject.path(context.codingPath))' must be \(ConfigurationObject.describe(type))"
            )
        } catch let DecodingError.valueNotFound(type, context) {
            throw TroveError.invalidConfiguration(
                "\(file.path): '\(ConfigurationObject.path(context.codingPath))' must be \(ConfigurationObject.describe(type))"
            )
        } catch {
            throw TroveError.invalidConfiguration("\(file.path) is not a JSON object: \(error.localizedDescription)")
        }
    }
}

extension TroveError {
    /// An `invalidConfiguration`'s reason without its prefix; other errors' descriptions.
    var reason: String {
        if case let .invalidConfiguration(reason) = self { return reason }
        return description
    }
}
