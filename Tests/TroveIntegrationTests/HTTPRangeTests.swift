import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// Partial content: a 206 never replaces or stands for a whole response, and a Range request may be cut
/// from a stored whole one (RFC 9111 §3.3, §3.4).
@Suite struct HTTPRangeTests {
    static let whole = textRoute("0123456789A", [("Cache-Control", "max-age=3600")])
    static let part = textRoute(
        "01234", status: 206, [("Cache-Control", "max-age=3600"), ("Content-Range", "bytes 0-4/11")])

    /// The regression: a 206 was stored as the whole body and handed to a later plain GET.
    @Test func aStoredPartNeverAnswersAPlainGET() async throws {
        try await withServerAndCache(["/r": .sequence([Self.part, Self.whole])]) { server, dir in
            let url = server.url("/r")
            let part = try await fetchOnce(url, in: dir, headers: ["Range": "bytes=0-4"])
            #expect(part.status == 206 && part.text == "01234" && part.field("content-range") == "bytes 0-4/11")
            let whole = try await fetchOnce(url, in: dir)
            #expect(whole.status == 200 && whole.text == "0123456789A" && whole.source == .network)
            let again = try await fetchOnce(url, in: dir)
            #expect(again.text == "0123456789A" && again.source == .disk)
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func aPartDoesNotReplaceAStoredWholeResponse() async throws {
        try await withServerAndCache(["/r": .sequence([Self.whole, Self.part])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let part = try await fetchOnce(url, in: dir, headers: ["Range": "bytes=0-4"], policy: .reloadIgnoringCache)
            #expect(part.status == 206 && part.source == .network)
            let whole = try await fetchOnce(url, in: dir)
            #expect(whole.text == "0123456789A" && whole.status == 200 && whole.source == .disk)
        }
    }

    @Test(arguments: [
        ("bytes=0-1", "01", "bytes 0-1/11"), ("bytes=1-", "123456789A", "bytes 1-10/11"),
        ("bytes=-1", "A", "bytes 10-10/11"), ("bytes=3-500", "3456789A", "bytes 3-10/11")
    ])
    func aRangeIsCutFromAStoredWholeResponse(range: String, text: String, contentRange: String) async throws {
        try await withServerAndCache(["/r": Self.whole]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let part = try await fetchOnce(url, in: dir, headers: ["Range": range])
            #expect(part.status == 206 && part.source == .disk && part.text == text)
            #expect(part.field("content-range") == contentRange && part.field("content-length") == String(text.count))
            // In memory too, and the whole response stays whole there.
            let pipeline = try makeDataPipeline(dir)
            #expect(try await pipeline.data(for: url).status == 200)
            let fromMemory = try await pipeline.data(for: DataRequest(url: url, headers: ["range": range]))
            #expect(fromMemory.source == .memory && fromMemory.status == 206 && fromMemory.text == text)
            #expect(try await pipeline.data(for: url).text == "0123456789A")
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    @Test func aRangeNoPartOfTheBodySatisfiesGetsTheWholeResponse() async throws {
        try await withServerAndCache(["/r": Self.whole]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let answer = try await fetchOnce(url, in: dir, headers: ["Range": "bytes=50-60"])
            #expect(answer.status == 200 && answer.text == "0123456789A" && answer.source == .disk)
        }
    }
}
