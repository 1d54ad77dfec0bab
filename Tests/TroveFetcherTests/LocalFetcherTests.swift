import Foundation
import Testing
import TroveCore
import TroveFetcher

@Suite struct LocalFetcherTests {
    @Test func fileFetcherReadsBytesAndRefusesMissingFiles() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trove-file-\(UUID().uuidString)")
        try Data([1, 2, 3, 4]).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        guard case let .data(data, metadata) = try await FileFetcher().fetch(FetchRequest(url: url)) else {
            Issue.record("expected data"); return
        }
        #expect(data == Data([1, 2, 3, 4]))
        #expect(metadata.expectedLength == 4)
        await #expect(throws: TroveError.tooLarge(url: url.absoluteString, limit: 3)) {
            _ = try await FileFetcher().fetch(FetchRequest(url: url, maxBytes: 3))
        }
        let missing = url.appendingPathExtension("missing")
        await #expect(throws: TroveError.ioFailed(path: missing.path, reason: "no such file; check the path")) {
            _ = try await FileFetcher().fetch(FetchRequest(url: missing))
        }
    }

    @Test func dataURLsDecodeBase64AndPercentEncoding() async throws {
        let base64 = URL(string: "data:image/png;base64,AAECAw==")!
        guard case let .data(data, metadata) = try await DataURLFetcher().fetch(FetchRequest(url: base64)) else {
            Issue.record("expected data"); return
        }
        #expect(data == Data([0, 1, 2, 3]))
        #expect(metadata.contentType == "image/png")

        let text = URL(string: "data:,Hello%2C%20World")!
        guard case let .data(plain, _) = try await DataURLFetcher().fetch(FetchRequest(url: text)) else {
            Issue.record("expected data"); return
        }
        #expect(String(decoding: plain, as: UTF8.self) == "Hello, World")

        await #expect(throws: TroveError.self) {
            _ = try await DataURLFetcher().fetch(FetchRequest(url: URL(string: "data:;base64,@@@")!))
        }
    }
}
