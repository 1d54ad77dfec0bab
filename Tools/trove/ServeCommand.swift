import ArgumentParser
import CTroveSupport
import Foundation
import Logging
import ServiceLifecycle
import Trove
import TroveS3
import TroveServer

/// `trove serve`: the imgproxy-compatible image proxy. Configuration comes from `--config FILE`, then the
/// `TROVE_*` environment, then flags, each overriding the one before.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images by imgproxy URLs: fetch, transform, cache and answer over HTTP.",
        discussion: """
            URLs: /SIGNATURE/OPTIONS/plain/SOURCE[@EXT] or /SIGNATURE/OPTIONS/BASE64URL_SOURCE[.EXT], signed as \
            imgproxy signs them with --key/--salt (hex). Also /health and /metrics. Settings come from the \
            defaults, then --config FILE, then the environment (TROVE_* over IMGPROXY_*), then the flags \
            listed under <settings>.
            """)

    @OptionGroup var options: ServeOptions

    func run() async throws {
        Self.keepFreedBuffersForReuse()
        let configuration: ServerConfiguration
        do {
            configuration = try options.resolvedConfiguration(environment: ProcessInfo.processInfo.environment)
        } catch let error as ServerConfigurationError {
            throw ValidationError(error.description)
        }
        var logger = Logger(label: "trove.serve", factory: DeferredMetadataLogHandler.init(label:))
        logger.logLevel = configuration.logLevel
        for name in ServerConfiguration.ignoredVariables(in: ProcessInfo.processInfo.environment) {
            logger.warning("\(name) is an imgproxy setting trove serve does not support; it is ignored")
        }
        // Before the server is built: its pipeline and router read the process's tracer then.
        var telemetry: [any Service] = []
        if configuration.openTelemetry || configuration.openTelemetryMetrics {
            do {
                telemetry = [
                    try OpenTelemetry.bootstrap(
                        environment: ProcessInfo.processInfo.environment, traces: configuration.openTelemetry,
                        metrics: configuration.openTelemetryMetrics, logger: logger)
                ]
                if configuration.openTelemetry {
                    logger.handler.metadataProvider = OpenTelemetry.loggingMetadataProvider
                }
            } catch let error as ServerConfigurationError {
                throw ValidationError(error.description)
            } catch {
                throw ValidationError("--otel\(configuration.openTelemetry ? "" : "-metrics"): \(error)")
            }
        }
        let server: ImageProxyServer
        // The s3 fetcher reads sources where the settings say; whether it may is the server's source policy.
        let registry = try TroveRegistry.make(
            s3Sources: S3SourceSettings(endpoint: configuration.s3Endpoint, region: configuration.s3Region),
            avifSpeed: configuration.avifSpeed)
        do {
            server = try ImageProxyServer(configuration: configuration, registry: registry, logger: logger)
        } catch let error as ServerConfigurationError {
            throw ValidationError(error.description)
        } catch let error as TroveError {
            throw ValidationError(error.description)
        }
        try await Self.checkSharedTier(configuration.pipeline, registry: registry, logger: logger)
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let returner = Self.returnFreeMemory(every: ProcessInfo.processInfo.environment["TROVE_FREE_MEMORY_INTERVAL"])
        defer { returner?.cancel() }
        try await server.run(alongside: telemetry) { port in
            // One line scripts and tests read for the port; written at once, not left in a pipe's buffer.
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
        }
    }

    /// Asks each shared tier for one key before listening. A tier that refuses this process (a wrong secret
    /// or password, a bucket that does not exist) would fail every request, so the server does not start and
    /// says why; one that does not answer is only warned about, since requests go on without it until it
    /// is back (as they would for an outage while serving). In a stack each tier is asked on its own, so a
    /// refusing Redis above a working S3 is still reported.
    static func checkSharedTier(
        _ configuration: PipelineConfiguration, registry: PluginRegistry, logger: Logger
    ) async throws {
        for url in configuration.sharedCaches {
            var single = configuration
            single.sharedCache = url
            guard let tier = try single.makeSharedTier(registry: registry) else { continue }
            let shown = SharedCacheOptions.redacted(url)
            do {
                _ = try await tier.get("trove-start-up-check")
                await tier.shutdown()
            } catch let TroveError.invalidConfiguration(reason) {
                await tier.shutdown()
                throw ValidationError("shared cache \(shown) refused this server: \(reason)")
            } catch let TroveError.sharedTierUnavailable(reason) {
                await tier.shutdown()
                logger.warning(
                    "shared cache \(shown) did not answer at start-up (\(reason)); serving without it until it does")
            } catch {
                await tier.shutdown()
                throw error
            }
        }
    }

    /// Every request allocates and frees buffers of a few hundred KB (source, pixels, result). By default
    /// glibc maps such blocks fresh and returns freed heap tops at once, so each request pays page faults
    /// and, with many threads, TLB shootdowns for memory it just gave back: about a tenth of the transform
    /// workload's time here. A server reuses instead: blocks under 32 MiB come from the heap, and each arena
    /// keeps up to 16 MiB free at its heap's top.
    static func keepFreedBuffersForReuse() {
        _ = trove_keep_freed_buffers_for_reuse()
    }

    /// What the heap keeps for reuse would otherwise stay resident for good after a burst of large decodes,
    /// and resident memory would not follow what the caches hold: every `seconds` (10 unless
    /// `TROVE_FREE_MEMORY_INTERVAL` says otherwise; 0 turns it off) the free memory goes back to the system,
    /// but for what a thread's arena keeps at its heap's top (glibc does not trim it; at most 16 MiB each).
    /// The first decode after it pays its buffers' page faults again, once an interval, not once a request.
    static func returnFreeMemory(every seconds: String?) -> Task<Void, Never>? {
        let interval = seconds.flatMap(Double.init) ?? 10
        guard interval > 0 else { return nil }
        return Task.detached(priority: .background) {
            while (try? await Task.sleep(for: .seconds(interval))) != nil {
                _ = trove_return_free_memory()
            }
        }
    }
}
