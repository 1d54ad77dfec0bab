import Foundation
import Logging
import Trove

extension ServerSetting {
    /// Every setting of `trove serve`, in the order `--help` lists them. Each names its flag, its config-file
    /// key, its variables (Trove's `TROVE_*`, then imgproxy's `IMGPROXY_*` where one means the same) and
    /// where in `ServerConfiguration` it writes; the defaults are `ServerConfiguration()`'s.
    package static let all: [ServerSetting] =
        listening + connections + signing + sources + limits + processing + caching + logging
        + delivery + observability

    private static let listening: [ServerSetting] = [
        ServerSetting(
            flag: "host", key: "host", environment: [Variable("TROVE_HOST")], help: "Address to listen on.",
            write: { configuration, values, _ in configuration.host = values.last ?? "" }, read: { $0.host }),
        ServerSetting(
            flag: "port", key: "port", environment: [Variable("TROVE_PORT")],
            help: "Port to listen on; 0 picks a free one.", write: integer(\.port, in: 0...65535),
            read: { "\($0.port)" }),
        // imgproxy's HOST:PORT in one variable; TROVE_HOST and TROVE_PORT win over it.
        ServerSetting(
            flag: nil, key: nil, environment: [Variable("IMGPROXY_BIND")], help: "HOST:PORT to listen on.",
            write: { configuration, values, name in
                let text = values.last ?? ""
                guard let colon = text.lastIndex(of: ":") else {
                    throw ServerConfigurationError("\(given(name, text)) is not HOST:PORT (or :PORT)")
                }
                let host = text[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                configuration.port = try wholeNumber(String(text[text.index(after: colon)...]), name, in: 0...65535)
                configuration.host = host.isEmpty ? "0.0.0.0" : host
            }, read: { "\($0.host):\($0.port)" }),
        ServerSetting(
            flag: "max-concurrency", key: "maxConcurrency",
            environment: [Variable("TROVE_MAX_CONCURRENCY"), Variable("IMGPROXY_WORKERS")],
            help: "Most transforms at once.", write: integer(\.maxConcurrency), read: { "\($0.maxConcurrency)" }),
        ServerSetting(
            flag: "max-queue", key: "maxQueue", environment: [Variable("TROVE_MAX_QUEUE")],
            help: "Most requests waiting for a transform; past it requests get 429.",
            write: integer(\.maxQueue, in: 0...Int.max), read: { "\($0.maxQueue)" }),
        ServerSetting(
            flag: "max-requests", key: "maxRequests", environment: [Variable("TROVE_MAX_REQUESTS")],
            help: "Most image requests in progress, identical ones included; past it 429.",
            write: integer(\.maxRequests), read: { "\($0.maxRequests)" })
    ]

    private static let connections: [ServerSetting] = [
        ServerSetting(
            flag: "header-timeout", key: "headerReadTimeout",
            environment: [Variable("TROVE_HEADER_TIMEOUT"), Variable("IMGPROXY_READ_REQUEST_TIMEOUT")],
            help: "Seconds a connection has to send a whole request head; slower ones are closed.",
            write: seconds(\.headerReadTimeout), read: { "\($0.headerReadTimeout.components.seconds)" }),
        ServerSetting(
            flag: "keep-alive-timeout", key: "keepAliveTimeout",
            environment: [Variable("TROVE_KEEP_ALIVE_TIMEOUT"), Variable("IMGPROXY_KEEP_ALIVE_TIMEOUT")],
            help: "Seconds a connection is kept open for its next request after an answer's last byte is written.",
            write: seconds(\.keepAliveTimeout), read: { "\($0.keepAliveTimeout.components.seconds)" }),
        ServerSetting(
            flag: "write-timeout", key: "writeTimeout", environment: [Variable("TROVE_WRITE_TIMEOUT")],
            help: "Seconds a connection with bytes to write may go without its client reading any; then it is closed.",
            write: seconds(\.writeTimeout), read: { "\($0.writeTimeout.components.seconds)" }),
        ServerSetting(
            flag: "max-connections", key: "maxConnections",
            environment: [Variable("TROVE_MAX_CONNECTIONS"), Variable("IMGPROXY_MAX_CLIENTS", convert: positive)],
            help: "Most open connections; past it new ones wait in the kernel's backlog.",
            write: integer(\.maxConnections), read: { "\($0.maxConnections)" }),
        ServerSetting(
            flag: "health-grace", key: "healthGrace", environment: [Variable("TROVE_HEALTH_GRACE")],
            help: "Seconds /health fails after SIGTERM before the listener closes.",
            write: { configuration, values, name in
                let text = values.last ?? ""
                guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                    throw ServerConfigurationError("\(given(name, text)) is not a number of seconds, 0 or more")
                }
                configuration.healthGrace = .milliseconds(Int64(seconds * 1000))
            }, read: { "\($0.healthGrace.components.seconds)" }),
        ServerSetting(
            flag: "drain-seconds", key: "drainTimeout",
            environment: [Variable("TROVE_DRAIN_SECONDS"), Variable("IMGPROXY_GRACEFUL_STOP_TIMEOUT")],
            help: "Most seconds from SIGTERM to exit; requests still running then are cancelled.",
            write: seconds(\.drainTimeout), read: { "\($0.drainTimeout.components.seconds)" })
    ]

    private static let signing: [ServerSetting] = [
        ServerSetting(
            flag: "key", key: "keys", environment: [Variable("TROVE_KEY"), Variable("IMGPROXY_KEY")], form: .list,
            help: "Hex signing key; repeat with --salt for several pairs (key rotation). None: unsigned URLs.",
            write: texts(\.keys), read: { $0.keys.isEmpty ? "none" : "\($0.keys.count) keys" }),
        ServerSetting(
            flag: "salt", key: "salts", environment: [Variable("TROVE_SALT"), Variable("IMGPROXY_SALT")],
            form: .list, help: "Hex signing salt, one per --key.", write: texts(\.salts),
            read: { $0.salts.isEmpty ? "none" : "\($0.salts.count) salts" }),
        ServerSetting(
            flag: "signature-size", key: "signatureSize",
            environment: [Variable("TROVE_SIGNATURE_SIZE"), Variable("IMGPROXY_SIGNATURE_SIZE")],
            help: "Bytes of the HMAC-SHA256 a signature carries (truncated signatures).",
            write: integer(\.signatureSize, in: 1...32), read: { "\($0.signatureSize)" }),
        ServerSetting(
            flag: "preset", key: "presets", environment: [Variable("TROVE_PRESETS"), Variable("IMGPROXY_PRESETS")],
            form: .list, help: "A preset as NAME=OPTIONS (e.g. thumb=rs:fill:300:300/q:80); repeatable.",
            write: { configuration, values, name in
                var table: [String: String] = [:]
                for preset in values where !preset.isEmpty {
                    guard let equals = preset.firstIndex(of: "="), equals != preset.startIndex else {
                        throw ServerConfigurationError("\(given(name, preset)) must be NAME=OPTIONS")
                    }
                    table[String(preset[..<equals])] = String(preset[preset.index(after: equals)...])
                }
                configuration.presets = table
            }, read: { $0.presets.isEmpty ? "none" : $0.presets.keys.sorted().joined(separator: ", ") }),
        ServerSetting(
            flag: "presets-only", key: "presetsOnly",
            environment: [Variable("TROVE_PRESETS_ONLY"), Variable("IMGPROXY_ONLY_PRESETS")], form: .on,
            help: "Accept only preset options in URLs.", write: flag(\.presetsOnly), read: { "\($0.presetsOnly)" })
    ]

    private static let sources: [ServerSetting] = [
        ServerSetting(
            flag: "allowed-source", key: "allowedSources",
            environment: [Variable("TROVE_ALLOWED_SOURCES"), Variable("IMGPROXY_ALLOWED_SOURCES")], form: .list,
            help: "Allowed source URL prefix (s3://bucket for a bucket), matched on a boundary; repeatable. None: any.",
            write: texts(\.allowedSources),
            read: { $0.allowedSources.isEmpty ? "any" : $0.allowedSources.joined(separator: ", ") }),
        ServerSetting(
            flag: "allow-loopback-sources", key: "allowLoopbackSources",
            environment: [Variable("TROVE_ALLOW_LOOPBACK_SOURCES")], form: .on,
            help: "Allow sources on loopback addresses (127.0.0.0/8, ::1).", write: flag(\.allowLoopbackSources),
            read: { "\($0.allowLoopbackSources)" }),
        ServerSetting(
            flag: "allow-private-sources", key: "allowPrivateSources",
            environment: [Variable("TROVE_ALLOW_PRIVATE_SOURCES")], form: .on,
            help: "Allow sources on private addresses (link-local stays refused).", write: flag(\.allowPrivateSources),
            read: { "\($0.allowPrivateSources)" }),
        ServerSetting(
            flag: "s3-sources", key: "s3Sources",
            environment: [Variable("TROVE_S3_SOURCES"), Variable("IMGPROXY_USE_S3")], form: .on,
            help:
                "Serve s3://bucket/key sources, signed with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or ~/.aws/credentials.",
            write: flag(\.s3Sources), read: { "\($0.s3Sources)" }),
        ServerSetting(
            flag: "s3-endpoint", key: "s3Endpoint",
            environment: [Variable("TROVE_S3_ENDPOINT"), Variable("IMGPROXY_S3_ENDPOINT")],
            help: "S3 endpoint of s3:// sources, http(s)://host[:port]; none: AWS's for the region.",
            write: { configuration, values, name in
                let text = values.last ?? ""
                guard !text.isEmpty else {
                    configuration.s3Endpoint = nil
                    return
                }
                guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                    url.host?.isEmpty == false, url.path.isEmpty || url.path == "/", url.query == nil
                else {
                    throw ServerConfigurationError(
                        "\(given(name, text)) is not an S3 endpoint; give http(s)://host[:port]")
                }
                configuration.s3Endpoint = url
            }, read: { $0.s3Endpoint?.absoluteString ?? "AWS's" }),
        ServerSetting(
            flag: "s3-region", key: "s3Region",
            environment: [Variable("TROVE_S3_REGION"), Variable("IMGPROXY_S3_REGION")],
            help: "Region s3:// sources are signed for; none: AWS_REGION, else us-east-1.",
            write: { configuration, values, _ in
                let text = values.last ?? ""
                configuration.s3Region = text.isEmpty ? nil : text
            }, read: { $0.s3Region ?? "AWS_REGION's" }),
        ServerSetting(
            flag: "shared-cache", key: nil, environment: [Variable("TROVE_SHARED_CACHE")], form: .list,
            help:
                "Shared cache tier for a fleet: redis://[user:pass@]host:port[/db] or s3://bucket[/prefix]?endpoint=URL&region=R; repeat to stack tiers, top first (the variable: comma- or space-separated).",
            write: { configuration, values, name in
                // The environment's list comes split at commas; spaces separate URLs too.
                let texts = values.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
                configuration.pipeline.sharedCaches = try texts.map { text in
                    guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                        let named = texts.count == 1 ? "" : " ('\(text)')"
                        throw ServerConfigurationError(
                            "\(given(name, values.joined(separator: ","))) is not a URL\(named); give "
                                + "redis://[user:pass@]host:port[/db] or s3://bucket[/prefix]?endpoint=URL, "
                                + "several separated by commas or spaces")
                    }
                    return url
                }
            },
            read: {
                $0.pipeline.sharedCaches.isEmpty
                    ? "none" : $0.pipeline.sharedCaches.map(\.absoluteString).joined(separator: " ")
            })
    ]

    private static let limits: [ServerSetting] = [
        ServerSetting(
            flag: "max-source-bytes", key: nil,
            environment: [
                Variable("TROVE_MAX_SOURCE_BYTES"), Variable("IMGPROXY_MAX_SRC_FILE_SIZE", convert: positive)
            ],
            help: "Largest source in bytes (413 past it).", write: bytes(\.pipeline.maxBytes),
            read: { "\($0.pipeline.maxBytes)" }),
        ServerSetting(
            flag: "max-source-pixels", key: nil,
            environment: [
                Variable("TROVE_MAX_SOURCE_PIXELS"), Variable("IMGPROXY_MAX_SRC_RESOLUTION", convert: megapixels)
            ], help: "Largest source in pixels, checked from its header before decoding (422 past it).",
            write: integer(\.pipeline.decodingLimits.maxPixels), read: { "\($0.pipeline.decodingLimits.maxPixels)" }),
        ServerSetting(
            flag: "max-animation-frames", key: nil,
            environment: [Variable("TROVE_MAX_ANIMATION_FRAMES"), Variable("IMGPROXY_MAX_ANIMATION_FRAMES")],
            help: "Most animation frames decoded; frames after them are dropped.",
            write: integer(\.pipeline.decodingLimits.maxFrames),
            read: { "\($0.pipeline.decodingLimits.maxFrames)" }),
        ServerSetting(
            flag: "memory-budget", key: nil, environment: [Variable("TROVE_MEMORY_BUDGET")],
            help: "Bytes all decodes may hold at once (256M, 2G; none for no bound), from each source's header: "
                + "a decode that does not fit waits (429 past the queue, 503 past the deadline), a source "
                + "larger than the budget gets 422. Default: half the container's memory limit, else none.",
            write: { configuration, values, name in
                let text = values.last ?? ""
                if ["none", "off"].contains(text.lowercased()) {
                    configuration.pipeline.decodeMemoryBudget = nil
                    return
                }
                guard let bytes = ByteCountText.parse(text), bytes > 0 else {
                    throw ServerConfigurationError(
                        "\(given(name, text)) is not a byte count; give one like 256M or 2G, or none")
                }
                configuration.pipeline.decodeMemoryBudget = bytes
            }, read: { $0.pipeline.decodeMemoryBudget.map { ByteCountText.text($0) } ?? "none" }),
        ServerSetting(
            flag: "max-result-dimension", key: "maxResultDimension",
            environment: [
                Variable("TROVE_MAX_RESULT_DIMENSION"), Variable("IMGPROXY_MAX_RESULT_DIMENSION", convert: positive)
            ], help: "Largest width or height of a result in pixels; larger asks get 400 or 422.",
            write: integer(\.maxResultDimension), read: { "\($0.maxResultDimension)" }),
        ServerSetting(
            flag: "deadline", key: nil,
            environment: [Variable("TROVE_REQUEST_DEADLINE"), Variable("IMGPROXY_TIMEOUT")],
            help: "Seconds a request may take: queue, fetch and retries, transform (504 past it).",
            write: seconds(\.pipeline.requestDeadline), read: { "\($0.pipeline.requestDeadline.components.seconds)" }),
        ServerSetting(
            flag: "crash-guard", key: nil, environment: [Variable("TROVE_CRASH_GUARD")],
            help: "Seconds a source that crashed a server (a trap while it was decoded) is refused with 422, by "
                + "this server once restarted and through the shared cache by the fleet; 0 keeps no crash journal.",
            write: { configuration, values, name in
                let text = values.last ?? ""
                guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                    throw ServerConfigurationError("\(given(name, text)) is not a number of seconds, 0 or more")
                }
                configuration.pipeline.crashGuard = seconds == 0 ? nil : .milliseconds(Int64(seconds * 1000))
            }, read: { "\($0.pipeline.crashGuard?.components.seconds ?? 0)" }),
        ServerSetting(
            flag: "reducing-gap", key: nil, environment: [Variable("TROVE_REDUCING_GAP")],
            help: "How much larger than the output a JPEG or WebP stays when decoded reduced: 1 as thumbor, 2 as "
                + "Pillow's thumbnail(). A PNG, reduced by averaging boxes, stays at least twice as large.",
            write: { configuration, values, name in
                let text = values.last ?? ""
                guard let gap = Double(text) else {
                    throw ServerConfigurationError("\(given(name, text)) is not a number")
                }
                guard gap >= 1, gap.isFinite else {
                    throw ServerConfigurationError(
                        "\(name) must be 1 or more (1 reduces to the output size), not \(text)")
                }
                configuration.pipeline.shrinkOnLoadReducingGap = gap
            }, read: { "\($0.pipeline.shrinkOnLoadReducingGap.formatted())" })
    ]

    private static let processing: [ServerSetting] = [
        ServerSetting(
            flag: "quality", key: nil, environment: [Variable("TROVE_QUALITY"), Variable("IMGPROXY_QUALITY")],
            help: "Quality, 1-100, of results whose URL names none and whose format has no --format-quality.",
            write: { configuration, values, name in
                let quality = try wholeNumber(values.last ?? "", name, in: 1...100)
                configuration.pipeline.encodingOptions.quality = Double(quality) / 100
            }, read: { "\(Int(($0.pipeline.encodingOptions.quality * 100).rounded()))" }),
        ServerSetting(
            flag: "format-quality", key: "formatQualities",
            environment: [Variable("TROVE_FORMAT_QUALITY"), Variable("IMGPROXY_FORMAT_QUALITY")], form: .list,
            help: "A format's default quality as FORMAT=Q (e.g. avif=60); repeatable.",
            write: { configuration, values, name in
                for entry in values where !entry.isEmpty {
                    let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, !parts[0].isEmpty else {
                        throw ServerConfigurationError("\(given(name, entry)) must be FORMAT=QUALITY, e.g. avif=60")
                    }
                    configuration.formatQualities[ImageFormat(rawValue: parts[0])] = try wholeNumber(
                        parts[1], name, in: 1...100)
                }
            },
            read: { configuration in
                configuration.formatQualities.keys.map(\.rawValue).sorted().map {
                    "\($0)=\(configuration.formatQualities[ImageFormat(rawValue: $0)] ?? 0)"
                }.joined(separator: ",")
            }),
        ServerSetting(
            flag: "avif-speed", key: "avifSpeed",
            environment: [Variable("TROVE_AVIF_SPEED"), Variable("IMGPROXY_AVIF_SPEED")],
            help: "libavif's speed for AVIF results, 0 (smallest files) to 10 (fastest); see docs/BENCHMARKS.md.",
            write: integer(\.avifSpeed, in: 0...10), read: { "\($0.avifSpeed)" }),
        ServerSetting(
            flag: "auto-rotate", key: "autoRotate",
            environment: [Variable("TROVE_AUTO_ROTATE"), Variable("IMGPROXY_AUTO_ROTATE")],
            help: "true or false: turn results upright by their EXIF orientation unless a URL says otherwise.",
            write: flag(\.autoRotate), read: { "\($0.autoRotate)" }),
        ServerSetting(
            flag: "max-bytes-quality-floor", key: "maxBytesQualityFloor",
            environment: [Variable("TROVE_MAX_BYTES_QUALITY_FLOOR")],
            help: "The lowest quality max_bytes may choose.", write: integer(\.maxBytesQualityFloor, in: 1...100),
            read: { "\($0.maxBytesQualityFloor)" }),
        ServerSetting(
            flag: "watermark", key: "watermarkFile",
            environment: [Variable("TROVE_WATERMARK_PATH"), Variable("IMGPROXY_WATERMARK_PATH")],
            help: "An image file that URLs' watermark option lays over results.",
            write: { configuration, values, _ in
                let path = values.last ?? ""
                configuration.watermarkFile = path.isEmpty ? nil : path
            }, read: { $0.watermarkFile ?? "none" }),
        ServerSetting(
            flag: "allow-security-options", key: "allowSecurityOptions",
            environment: [Variable("TROVE_ALLOW_SECURITY_OPTIONS"), Variable("IMGPROXY_ALLOW_SECURITY_OPTIONS")],
            form: .on, help: "Accept imgproxy's security options (max_src_resolution, ...) in URLs.",
            write: flag(\.allowSecurityOptions), read: { "\($0.allowSecurityOptions)" })
    ]

    private static let caching: [ServerSetting] = [
        ServerSetting(
            flag: "cache-dir", key: nil, environment: [Variable("TROVE_CACHE_DIR")],
            help: "Cache directory for sources and results.",
            write: { configuration, values, _ in
                configuration.pipeline.cacheDirectory = URL(fileURLWithPath: values.last ?? "")
            }, read: { $0.pipeline.cacheDirectory?.path ?? "none (memory only)" }),
        ServerSetting(
            flag: "no-result-cache", key: "resultCache", environment: [Variable("TROVE_NO_RESULT_CACHE")], form: .off,
            help: "Transform every request (sources stay cached); for benchmarks and tests.",
            write: flag(\.resultCache), read: { $0.resultCache ? "results cached" : "results not cached" }),
        ServerSetting(
            flag: "no-source-cache", key: nil, environment: [Variable("TROVE_NO_SOURCE_CACHE")], form: .off,
            help: "Keep no source on disk, only results (for servers behind a CDN: a file fewer per miss).",
            write: flag(\.pipeline.keepsOriginalsOnDisk),
            read: { $0.pipeline.keepsOriginalsOnDisk ? "sources kept on disk" : "sources not kept on disk" }),
        ServerSetting(
            flag: "result-memory", key: "resultMemoryBytes", environment: [Variable("TROVE_RESULT_MEMORY")],
            help: "Bytes of encoded results kept in memory (256M, 1G, ...).", write: bytes(\.resultMemoryBytes),
            read: { "\($0.resultMemoryBytes)" }),
        ServerSetting(
            flag: "result-max-age", key: "resultMaxAge",
            environment: [Variable("TROVE_RESULT_MAX_AGE"), Variable("IMGPROXY_TTL")],
            help: "Cache-Control max-age of results, in seconds.", write: integer(\.resultMaxAge, in: 0...Int.max),
            read: { "\($0.resultMaxAge)" }),
        ServerSetting(
            flag: "error-max-age", key: "errorMaxAge", environment: [Variable("TROVE_ERROR_MAX_AGE")],
            help: "Cache-Control max-age of client errors, in seconds.", write: integer(\.errorMaxAge, in: 0...Int.max),
            read: { "\($0.errorMaxAge)" })
    ]

    private static let logging: [ServerSetting] = [
        ServerSetting(
            flag: "log-level", key: "logLevel",
            environment: [Variable("TROVE_LOG_LEVEL"), Variable("IMGPROXY_LOG_LEVEL", convert: imgproxyLogLevel)],
            help: "trace, debug, info (an access log line per request), notice, warning, error or critical.",
            write: { configuration, values, name in
                let text = values.last ?? ""
                guard let level = Logger.Level(rawValue: text.lowercased()) else {
                    throw ServerConfigurationError(
                        "\(given(name, text)) is not a log level; use trace, debug, info, notice, warning, error or critical"
                    )
                }
                configuration.logLevel = level
            }, read: { $0.logLevel.rawValue })
    ]

    /// imgproxy writes 0 for "no limit"; Trove keeps its own limit then.
    private static func positive(_ text: String) throws -> String? {
        Int(text.trimmingCharacters(in: .whitespaces)) == 0 ? nil : text
    }

    /// imgproxy's `IMGPROXY_MAX_SRC_RESOLUTION` is in megapixels (16.8); Trove counts pixels.
    private static func megapixels(_ text: String) throws -> String? {
        guard let megapixels = Double(text.trimmingCharacters(in: .whitespaces)), megapixels >= 0 else {
            throw ServerConfigurationError("IMGPROXY_MAX_SRC_RESOLUTION=\(text) is not a number of megapixels")
        }
        return megapixels == 0 ? nil : String(Int((megapixels * 1_000_000).rounded()))
    }

    /// imgproxy's levels are debug, info, warn, error; `warn` is swift-log's `warning`.
    private static func imgproxyLogLevel(_ text: String) throws -> String? {
        text.lowercased() == "warn" ? "warning" : text
    }
}
