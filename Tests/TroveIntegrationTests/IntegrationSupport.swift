import FixtureServer
import Foundation
import TroveTestSupport

/// Runs `body` with a started fixture server and a fresh cache directory; stops and removes both after.
func withServerAndCache(
    _ routes: [String: FixtureServer.Route] = [:],
    _ body: (FixtureServer, URL) async throws -> Void
) async throws {
    let server = try FixtureServer(serving: Fixtures.images, under: "/images/")
    for (path, route) in routes { server.setRoute(path, route) }
    try await server.start()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-it-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
        try await body(server, directory)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
