import CoreMetrics
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import Synchronization
import Tracing
import Trove
import TroveFetcher
import UnixSignals

/// `trove serve`: an image proxy that reads imgproxy URLs, fetches the source through an `ImagePipeline`
/// (caches, coalescing, limits), transforms and encodes it, and answers with HTTP caching headers.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.keys = ["943b421c9eb07c83"]; configuration.salts = ["520f986b998545b4"]
/// let server = try ImageProxyServer(configuration: configuration, registry: registry)
/// try await server.run { port in print("listening on http://127.0.0.1:\(port)") }   // until SIGTERM
/// ```
public final class ImageProxyServer: Sendable {
    /// What the server was made with.
    public let configuration: ServerConfiguration
    /// The pipeline every request runs through.
    public let pipeline: ImagePipeline
    /// Where `/metrics` reads from: the server's counters and the pipeline's.
    package let metricsRegistry: PrometheusCollectorRegistry
    private let responder: RouterResponder<BasicRequestContext>
    /// What every connection's `ConnectionHandler` shares: the hits it answers, its metrics and timeouts.
    private let connection: ConnectionHandler.Configuration
    /// Encoded results by result key; nil with `--no-result-cache`.
    private let results: MemoryCache<String, ServedResult>?
    /// Nil when the log level is above `info`, where no access lines are written.
    private let accessLog: AccessLog?
    private let logger: Logger
    private let runner = Mutex<(Task<Void, any Error>, ServiceGroup)?>(nil)
    private let boundPort = Mutex<Int?>(nil)
    /// The group `run` is running, for `drain`.
    private let running = Mutex<ServiceGroup?>(nil)
    /// Set by `drain`; `/health` fails while it is.
    private let draining = DrainFlag()

    /// Builds the pipeline from `registry` (the caller's codecs and plugins) and the configuration; `logger`
    /// writes at `configuration.logLevel`.
    /// Throws `ServerConfigurationError` for a bad key, salt, preset or source rule, and `TroveError` for
    /// a plugin name the registry lacks.
    ///
    /// Sources go through a `GuardedHTTPFetcher` registered for http and https in place of the registry's
    /// (file: and data: refused): the allowed prefixes, and the address rules on every hop, with names
    /// resolved by the system's resolver. `s3://` sources go to the registry's `s3` fetcher (install
    /// TroveS3's plugin with the configuration's endpoint and region) under the allowed prefixes when
    /// `s3Sources` is on, and are refused otherwise.
    public convenience init(
        configuration: ServerConfiguration, registry: PluginRegistry, logger: Logger = Logger(label: "trove.serve")
    ) throws {
        try self.init(configuration: configuration, registry: registry, resolver: SystemHostResolver(), logger: logger)
    }

    /// As the public initializer, with source host names resolved by `resolver` (tests answer from a table).
    package init(
        configuration: ServerConfiguration, registry: PluginRegistry, resolver: any HostResolver,
        logger: Logger = Logger(label: "trove.serve")
    ) throws {
        self.configuration = configuration
        var logger = logger
        logger.logLevel = configuration.logLevel
        self.logger = logger
        let metricsRegistry = PrometheusCollectorRegistry()
        self.metricsRegistry = metricsRegistry
        let sourcePolicy: SourcePolicy
        do {
            sourcePolicy = try SourcePolicy(
                allowedPrefixes: configuration.allowedSources, allowS3URLs: configuration.s3Sources)
        } catch let error as TroveError {
            throw ServerConfigurationError(error.description)
        }
        var registry = registry
        // Link-local stays refused: it is where cloud metadata services answer.
        let addressPolicy = AddressPolicy(
            allowLoopback: configuration.allowLoopbackSources, allowPrivate: configuration.allowPrivateSources)
        let guarded = GuardedHTTPFetcher(addressPolicy: addressPolicy, sourcePolicy: sourcePolicy, resolver: resolver)
        try registry.registerGuarded(guarded)
        // Sources' Last-Modified, Cache-Control and Expires are kept only when a setting sends them on.
        let sourceHeaders =
            configuration.useLastModified || configuration.cacheControlPassthrough ? SourceHeaders() : nil
        if let sourceHeaders {
            try registry.register(
                fetcher: HeaderRecordingFetcher(inner: guarded, headers: sourceHeaders), replacing: true)
        }

        var pipelineConfiguration = configuration.pipeline
        // The server keeps encoded results itself; decoded pixels in memory would only cost.
        pipelineConfiguration.memory.countLimit = 0
        // Waiting for decode memory is bounded like waiting for a transform slot.
        pipelineConfiguration.decodeMemoryQueueLimit = configuration.maxQueue
        pipelineConfiguration.scheduler = FetchSchedulerConfiguration(maxConcurrent: 64, maxPerHost: 16)
        // `/metrics`' registry, and with `--otel-metrics` (a bootstrapped `MetricsSystem`) OTLP's too.
        let exported = ServerMetricsCopy.bootstrapped
        let prometheus = PrometheusMetricsFactory(registry: metricsRegistry)
        pipelineConfiguration.metricsFactory =
            exported.map { MultiplexMetricsHandler(factories: [prometheus, $0]) } ?? prometheus
        pipelineConfiguration.logger = logger
        let route = try ImgproxyRoute(
            configuration: configuration, registry: registry,
            baseEncoding: pipelineConfiguration.encodingOptions)
        pipeline = try ImagePipeline(registry: registry, configuration: pipelineConfiguration)

        let results =
            configuration.resultCache
            ? MemoryCache<String, ServedResult>(
                configuration: MemoryCacheConfiguration(costLimit: configuration.resultMemoryBytes))
            : nil
        self.results = results
        let metrics = ServerMetrics(registry: metricsRegistry, copy: exported.map(ServerMetricsCopy.init(factory:)))
        let responder = ProxyResponder(
            pipeline: pipeline, route: route, sourcePolicy: sourcePolicy, addressPolicy: addressPolicy,
            gate: AdmissionGate(limit: configuration.maxConcurrency, queueLimit: configuration.maxQueue),
            requestLimit: RequestLimit(limit: configuration.maxRequests),
            results: results, metrics: metrics, configuration: configuration, logger: logger,
            sourceHeaders: sourceHeaders)
        let accessLog =
            configuration.logLevel <= .info
            ? AccessLog(onDrop: metrics.accessLogLineDropped) : nil
        self.accessLog = accessLog
        let recorder = AnswerRecorder(metrics: metrics, accessLog: accessLog)
        // The pipeline's rule (`PipelineConfiguration.tracer`, else the bootstrapped one; none if no-op).
        let configuredTracer = pipelineConfiguration.tracer ?? InstrumentationSystem.tracer
        let tracer = configuredTracer is NoOpTracer ? nil : configuredTracer
        connection = ConnectionHandler.Configuration(
            answers: results == nil
                ? nil
                : CachedResultAnswers(
                    responder: responder, recorder: recorder, date: ResponseDate(),
                    tracing: tracer.map { HitTracing(tracer: $0) }),
            metrics: metrics,
            timeouts: ConnectionState.Timeouts(
                head: TimeAmount(configuration.headerReadTimeout),
                keepAlive: TimeAmount(configuration.keepAliveTimeout),
                write: TimeAmount(configuration.writeTimeout)))
        let draining = draining
        self.responder = ProxyRouter.make(
            responder: responder, recorder: recorder, tracer: tracer,
            isDraining: { draining.isSet }
        ).buildResponder()
    }

    /// The result cache's counts (its lookups' hits and misses among them); nil with `--no-result-cache`.
    package var resultCacheStats: MemoryCacheStats? { results?.stats }

    /// The port the server listens on, once it does.
    public var port: Int? { boundPort.withLock { $0 } }

    /// Serves until SIGTERM or SIGINT, then returns. SIGTERM drains as a rolling restart wants (`drain()`):
    /// `/health` fails first, for `healthGrace`, while requests are still served; then the listener closes
    /// and the requests in flight finish (their cache writes are awaited as part of them), all within
    /// `drainTimeout`. SIGINT skips the grace. `onListening` gets the bound port. `services` (the span
    /// exporter of `OpenTelemetry.bootstrap`) run beside the server and are stopped after it, so what the
    /// last requests recorded is still sent.
    public func run(
        alongside services: [any Service] = [], onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        warnIfUnsigned()
        var groupConfiguration = ServiceGroupConfiguration(
            services: services + [makeApplication(onListening: onListening)], gracefulShutdownSignals: [.sigint],
            logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.drainTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        running.withLock { $0 = group }
        let signals = await UnixSignalsSequence(trapping: .sigterm)
        let watcher = Task { [self] in
            for await _ in signals {
                await drain()
                return
            }
        }
        defer { watcher.cancel() }
        do {
            try await group.run()
        } catch {
            await closeCaches()
            throw error
        }
        await closeCaches()
    }

    /// Whether a drain has begun: `/health` answers 503 from then on.
    package var isDraining: Bool { draining.isSet }

    /// Begins a graceful stop of a running server: `/health` answers 503 at once, requests are served for
    /// `configuration.healthGrace` more (a load balancer's checks see the failure and stop sending), then
    /// the listener closes and the requests in flight finish. Returns when the stop has begun.
    public func drain() async {
        draining.set()
        logger.notice("draining: /health fails from now; the listener closes after the health grace")
        try? await Task.sleep(for: configuration.healthGrace)
        let group = running.withLock { $0 } ?? runner.withLock { $0?.1 }
        await group?.triggerGracefulShutdown()
    }

    /// Starts serving in the background and returns the bound port (for tests and embedding); `stop` ends it.
    @discardableResult
    public func start() async throws -> Int {
        warnIfUnsigned()
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        let application = makeApplication { port in
            readyContinuation.yield(port)
            readyContinuation.finish()
        }
        var groupConfiguration = ServiceGroupConfiguration(services: [application], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.drainTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        let task = Task {
            // A server that never listens (the port is taken) must still end the wait below.
            defer { readyContinuation.finish() }
            try await group.run()
        }
        runner.withLock { $0 = (task, group) }
        for await port in ready { return port }
        _ = try await task.value
        throw CancellationError()
    }

    /// Stops a server begun with `start`: no new connections, in-flight requests finish, then it returns.
    public func stop() async {
        guard
            let (task, group) = runner.withLock({ current -> (Task<Void, any Error>, ServiceGroup)? in
                defer { current = nil }
                return current
            })
        else { return }
        await group.triggerGracefulShutdown()
        _ = await task.result
        await closeCaches()
    }

    /// Writes the disk stores still queued and closes the shared tier's connections once requests have
    /// finished, which also publishes this process's counts for `trove cache stats`.
    private func closeCaches() async {
        accessLog?.stop()
        await pipeline.flush()
        await pipeline.sharedTier?.shutdown()
    }

    private func makeApplication(onListening: @escaping @Sendable (Int) -> Void) -> some Service {
        Application(
            responder: responder,
            server: TroveHTTP1Channel.builder(connection: connection),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections, logger: logger)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                self.boundPort.withLock { $0 = port }
                onListening(port)
            },
            logger: logger)
    }

    private func warnIfUnsigned() {
        if !configuration.requiresSignature {
            logger.warning(
                "no signing key configured: unsigned URLs are accepted; set --key/--salt or TROVE_KEY/TROVE_SALT")
        }
    }
}

/// Whether a server is draining: set once, read by every `/health`.
final class DrainFlag: Sendable {
    private let value = Atomic(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    func set() {
        value.store(true, ordering: .relaxed)
    }
}
