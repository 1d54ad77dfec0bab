import FixtureServer
import Foundation
import Testing
import Trove

private struct Gatekeeper: PipelineDelegate {
    func shouldFetch(_ url: URL) async -> Bool { !url.path.contains("blocked") }

    func prepare(_ request: FetchRequest) async throws -> FetchRequest {
        var request = request
        request.headers["Authorization"] = "Bearer token-42"
        return request
    }

    /// Blacks out the top-left pixel, so the test can see the hook ran before caching.
    func didDecode(_ image: Image, for request: ImageRequest) throws -> Image {
        var image = image.convertedToRGBA8()
        image.pixels.replaceSubrange(0..<4, with: [0, 0, 0, 255])
        return image
    }
}

@Suite struct DelegateTests {
    @Test func hooksDecideModifyAndTransform() async throws {
        try await withServerAndCache { server, directory in
            let pipeline = try makePipeline(directory) { $0.delegate = Gatekeeper() }
            let blocked = server.url("/images/blocked.png")
            await #expect(throws: TroveError.fetchDeclined(url: blocked.absoluteString)) {
                _ = try await pipeline.image(for: blocked)
            }
            #expect(server.requests.isEmpty)

            let response = try await pipeline.image(for: server.url("/images/badge.png"))
            #expect(server.requestLog.last?.headers["authorization"] == "Bearer token-42")
            #expect(Array(response.image.pixels[0..<4]) == [0, 0, 0, 255])
            // The memory cache holds the hooked image.
            #expect(
                Array(try await pipeline.image(for: server.url("/images/badge.png")).image.pixels[0..<4]) == [
                    0, 0, 0, 255
                ])
        }
    }
}
