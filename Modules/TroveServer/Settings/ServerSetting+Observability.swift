import Foundation

extension ServerSetting {
    /// What the server tells of itself beyond its logs and `/metrics`: spans, and metrics, over OTLP.
    static let observability: [ServerSetting] = [
        ServerSetting(
            flag: "otel", key: "openTelemetry", environment: [Variable("TROVE_OTEL")], form: .on,
            help: "Export spans over OTLP/HTTP (protobuf), batched, as the OTEL_* variables say: "
                + "OTEL_EXPORTER_OTLP_ENDPOINT (http://localhost:4318), OTEL_SERVICE_NAME (trove), "
                + "OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, OTEL_RESOURCE_ATTRIBUTES.",
            write: flag(\.openTelemetry), read: { "\($0.openTelemetry)" }),
        ServerSetting(
            flag: "otel-metrics", key: "openTelemetryMetrics",
            // Trove's own variable last, so it wins where both are set.
            environment: [Variable("OTEL_METRICS_EXPORTER", convert: metricsExporter), Variable("TROVE_OTEL_METRICS")],
            form: .on,
            help: "Export the metrics /metrics shows over OTLP/HTTP (protobuf) too, every OTEL_METRIC_EXPORT_INTERVAL "
                + "ms (60000), to OTEL_EXPORTER_OTLP_ENDPOINT; also on with OTEL_METRICS_EXPORTER=otlp.",
            write: flag(\.openTelemetryMetrics), read: { "\($0.openTelemetryMetrics)" })
    ]

    /// `OTEL_METRICS_EXPORTER`: `otlp` switches metrics over OTLP on, `none` off; nothing else is built.
    private static func metricsExporter(_ value: String) throws -> String? {
        switch value {
        case "otlp": "true"
        case "none": "false"
        default:
            throw ServerConfigurationError(
                "OTEL_METRICS_EXPORTER=\(value) is not supported; trove serve exports otlp or none")
        }
    }
}
