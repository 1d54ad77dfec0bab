import Foundation
import Testing
import TroveServer

/// `--otel` and `--otel-metrics`: off by default, on by the flag, `TROVE_OTEL` (`TROVE_OTEL_METRICS` or the
/// standard `OTEL_METRICS_EXPORTER=otlp`) or the config file's key, in the help; and an exporter or protocol
/// swift-otel is not built with is refused before it is bootstrapped.
@Suite struct OpenTelemetrySettingTests {
    @Test func isOffUnlessAFlagOrTheEnvironmentSwitchesItOn() throws {
        #expect(!ServerConfiguration().openTelemetry)
        #expect(try ServerConfiguration(environment: [:], arguments: ["--otel"]).openTelemetry)
        #expect(try ServerConfiguration(environment: ["TROVE_OTEL": "true"], arguments: []).openTelemetry)
        #expect(!(try ServerConfiguration(environment: ["TROVE_OTEL": "false"], arguments: []).openTelemetry))
        #expect(throws: ServerConfigurationError.self) {
            try ServerConfiguration(environment: ["TROVE_OTEL": "maybe"], arguments: [])
        }
        let help = ServerSetting.helpText
        #expect(help.contains("--otel") && help.contains("OTEL_EXPORTER_OTLP_ENDPOINT") && help.contains("TROVE_OTEL"))
    }

    @Test func metricsOverOTLPAreOffUnlessTheFlagOrTheStandardVariableAsks() throws {
        #expect(!ServerConfiguration().openTelemetryMetrics)
        #expect(try ServerConfiguration(environment: [:], arguments: ["--otel-metrics"]).openTelemetryMetrics)
        func metrics(_ environment: [String: String]) throws -> Bool {
            try ServerConfiguration(environment: environment, arguments: []).openTelemetryMetrics
        }
        #expect(try metrics(["OTEL_METRICS_EXPORTER": "otlp"]))
        #expect(try metrics(["TROVE_OTEL_METRICS": "true"]))
        #expect(!(try metrics(["OTEL_METRICS_EXPORTER": "none"])))
        #expect(!(try ServerConfiguration(environment: [:], arguments: ["--otel"]).openTelemetryMetrics))
        // Trove's own variable wins over the standard one.
        #expect(try metrics(["OTEL_METRICS_EXPORTER": "none", "TROVE_OTEL_METRICS": "true"]))
        #expect(throws: ServerConfigurationError.self) { try metrics(["OTEL_METRICS_EXPORTER": "prometheus"]) }
        let help = ServerSetting.helpText
        #expect(help.contains("--otel-metrics") && help.contains("OTEL_METRICS_EXPORTER"))
        #expect(help.contains("TROVE_OTEL_METRICS"))
        #expect(throws: ServerConfigurationError.self) {
            try OpenTelemetry.checkExporter(["OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "grpc"])
        }
    }

    @Test func onlyOTLPOverHTTPProtobufIsAccepted() throws {
        try OpenTelemetry.checkExporter([:])
        try OpenTelemetry.checkExporter(
            ["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"])
        for environment in [
            ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"], ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"],
            ["OTEL_TRACES_EXPORTER": "zipkin"]
        ] {
            #expect(throws: ServerConfigurationError.self) { try OpenTelemetry.checkExporter(environment) }
        }
    }
}
