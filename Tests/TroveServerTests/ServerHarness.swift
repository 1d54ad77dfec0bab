import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Trove
import TroveAVIF
import TroveFetcher
import TroveHEIF
import TroveJPEG
import TroveJXL
import TroveServer
import TroveWebP

/// A proxy on a free loopback port in front of a FixtureServer origin, also on loopback.
struct ServerHarness {
    let server: ImageProxyServer
    let origin: FixtureServer
    let port: Int
    let cacheDirectory: URL

    /// Starts both; `configure` adjusts the proxy's configuration (loopback sources are allowed, as the
    /// origin is on loopback).
    static func start(
        origin: FixtureServer = FixtureServer(), registry: PluginRegistry? = nil,
        resolver: any HostResolver = SystemHostResolver(),
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ServerHarness {
        try await origin.start()
        let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-serve-\(UUID().uuidString)")
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.pipeline.cacheDirectory = cacheDirectory
        configuration.allowLoopbackSources = true
        configuration.logLevel = .error
        configure(&configuration)
        var logger = Logger(label: "trove.serve.test")
        logger.logLevel = .error
        let server = try ImageProxyServer(
            configuration: configuration, registry: try registry ?? Self.registry(),
            resolver: resolver, logger: logger)
        let port = try await server.start()
        return ServerHarness(server: server, origin: origin, port: port, cacheDirectory: cacheDirectory)
    }

    /// The standard registry with the JPEG, WebP, AVIF, JPEG XL and HEIF plugins, as the CLI's.
    static func registry() throws -> PluginRegistry {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveWebPPlugin())
        try registry.install(TroveAVIFPlugin())
        try registry.install(TroveJXLPlugin())
        try registry.install(TroveHEIFPlugin())
        return registry
    }

    func stop() async {
        await server.stop()
        await origin.stop()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }

    /// One request on its own connection.
    func request(_ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) async throws
        -> TestClient.Response
    {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            try await client.execute(TestClient.Request(path, method: method, headers: headers))
        }
    }

    /// The metric's value in `/metrics` (the sum over its label sets when `labels` is nil), or 0.
    func metric(_ name: String, labels: String? = nil) async throws -> Double {
        let response = try await request("/metrics")
        let text = String(buffer: response.body ?? ByteBuffer())
        var total = 0.0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            let series = parts[0]
            let matches = labels.map { series == "\(name){\($0)}" } ?? (series == name || series.hasPrefix(name + "{"))
            if matches { total += Double(parts[1]) ?? 0 }
        }
        return total
    }
}

extension TestClient.Response {
    var bytes: Data { Data((body ?? ByteBuffer()).readableBytesView) }
    var text: String { String(buffer: body ?? ByteBuffer()) }
    func header(_ name: HTTPField.Name) -> String? { head.headerFields[name] }
}
