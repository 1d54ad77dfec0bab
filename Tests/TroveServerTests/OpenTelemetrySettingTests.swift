import Foundation
import Testing
import TroveServer

/// `--otel`: off by default, on by the flag, `TROVE_OTEL` or the config file's key, in the help; and an
/// exporter or protocol swift-otel is not built with is refused before it is bootstrapped.
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
