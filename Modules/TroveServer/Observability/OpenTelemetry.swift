import Logging
import OTel
import ServiceLifecycle

/// `trove serve --otel` and `--otel-metrics`: swift-otel as the process's tracer, its metrics backend, or
/// both, exporting over OTLP/HTTP with protobuf (the package is built with its `OTLPHTTP` trait alone). Its
/// logs backend stays off: swift-log keeps the server's own handler. Metrics go over OTLP beside `/metrics`,
/// never instead: the server copies what it counts into the bootstrapped `MetricsSystem` (`ServerMetricsCopy`).
package enum OpenTelemetry {
    /// Bootstraps `InstrumentationSystem` with swift-otel's tracer when `traces`, and `MetricsSystem` with
    /// its OTLP metrics factory when `metrics`, once per process and before the server is built (the
    /// pipeline reads its tracer, and the server its metrics factory, when they are built). The `OTEL_*`
    /// variables of `environment` configure it (the endpoint, `OTEL_SERVICE_NAME`, the sampler and its
    /// argument, the resource attributes, the batch processor's `OTEL_BSP_*`, `OTEL_METRIC_EXPORT_INTERVAL`);
    /// the service name is `trove` unless they name one. Spans are exported in batches from a bounded queue
    /// that drops past its size, and metrics read at each interval, so a collector that is down or slow
    /// costs requests nothing. swift-otel's own tasks run in bursts on a thread of their own
    /// (`TickingTaskExecutor`), so a span's start and end wake no thread. The returned service does the
    /// exporting: run it with the server (`ImageProxyServer.run(alongside:)`), which stops it last, flushing
    /// what is queued.
    /// Throws `ServerConfigurationError` for an exporter or protocol other than OTLP over HTTP/protobuf,
    /// which swift-otel, built without them, would stop the process for.
    package static func bootstrap(
        environment: [String: String], traces: Bool = true, metrics: Bool = false, logger: Logger
    ) throws -> any Service {
        try checkExporter(environment)
        var configuration = OTel.Configuration.default
        configuration.serviceName = "trove"
        configuration.logs.enabled = false
        configuration.traces.enabled = traces
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.metrics.enabled = metrics
        configuration.metrics.exporter = .otlp
        configuration.metrics.otlpExporter.protocol = .httpProtobuf
        configuration.propagators = [.traceContext]
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        // Whether metrics go out is the server's setting (`openTelemetryMetrics`), which read this variable.
        var environment = environment
        environment["OTEL_METRICS_EXPORTER"] = nil
        return OnTelemetryTicks(service: try OTel.bootstrap(configuration: configuration, environment: environment))
    }

    /// The current span's `trace_id`, `span_id` and `trace_flags`, for the server's log handler: a line
    /// logged while a request is traced can be found from its trace.
    package static var loggingMetadataProvider: Logger.MetadataProvider { OTel.makeLoggingMetadataProvider() }

    /// Refuses `OTEL_TRACES_EXPORTER` other than `otlp` and an `OTEL_EXPORTER_OTLP_PROTOCOL` (or its
    /// `_TRACES_` or `_METRICS_` form) other than `http/protobuf`.
    package static func checkExporter(_ environment: [String: String]) throws {
        if let exporter = environment["OTEL_TRACES_EXPORTER"], exporter != "otlp" {
            throw ServerConfigurationError(
                "OTEL_TRACES_EXPORTER=\(exporter) is not supported; trove serve exports otlp")
        }
        for name in [
            "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"
        ] {
            if let value = environment[name], value != "http/protobuf" {
                throw ServerConfigurationError(
                    "\(name)=\(value) is not supported; trove serve sends OTLP over http/protobuf only")
            }
        }
    }
}
