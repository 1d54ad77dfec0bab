import Foundation

extension ServerSetting {
    /// What the server tells of itself beyond its logs and `/metrics`: spans over OTLP.
    static let observability: [ServerSetting] = [
        ServerSetting(
            flag: "otel", key: "openTelemetry", environment: [Variable("TROVE_OTEL")], form: .on,
            help: "Export spans over OTLP/HTTP (protobuf), batched, as the OTEL_* variables say: "
                + "OTEL_EXPORTER_OTLP_ENDPOINT (http://localhost:4318), OTEL_SERVICE_NAME (trove), "
                + "OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, OTEL_RESOURCE_ATTRIBUTES.",
            write: flag(\.openTelemetry), read: { "\($0.openTelemetry)" })
    ]
}
