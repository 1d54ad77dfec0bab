import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// A 200 to HEAD freshens the stored GET response it describes (RFC 9111 §4.3.5).
@Suite struct HTTPHeadFresheningTests {
    @Test func aHeadUpdatesTheStoredResponseItDescribes() async throws {
        let get = textRoute("body", [("Cache-Control", "max-age=0"), ("X-A", "1"), ("X-Kept", "k")])
        let head = textRoute("body", [("Cache-Control", "max-age=3600"), ("X-A", "2")])
        try await withServerAndCache(["/r": .sequence([get, head])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let answer = try await fetchOnce(url, in: dir, method: "HEAD")
            // Answered with the stored fields as the HEAD updated them.
            #expect(answer.status == 200 && answer.data.isEmpty)
            #expect(answer.field("x-a") == "2" && answer.field("x-kept") == "k")
            // The stored GET response is fresh now, with the new field and its own body.
            let after = try await fetchOnce(url, in: dir)
            #expect(after.source == .disk && after.text == "body" && after.field("x-a") == "2")
            #expect(server.requestLog(for: "/r").map(\.method) == ["GET", "HEAD"])
        }
    }

    @Test func aHeadForAnotherRepresentationLeavesTheStoredOneAlone() async throws {
        let get = textRoute("body", [("Cache-Control", "max-age=0"), ("ETag", "\"a\"")])
        let head = textRoute("body", [("Cache-Control", "max-age=3600"), ("ETag", "\"b\"")])
        try await withServerAndCache(["/r": .sequence([get, head, get])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let answer = try await fetchOnce(url, in: dir, method: "HEAD")
            #expect(answer.field("etag") == "\"b\"")
            // Still stale: the next GET asks the origin.
            _ = try await fetchOnce(url, in: dir)
            #expect(server.requestCount(for: "/r") == 3)
        }
    }

    @Test func representationsAreComparedByValidatorsElseLength() {
        func fields(_ pairs: [(String, String)]) -> [HeaderField] { pairs.map { HeaderField(name: $0.0, value: $0.1) } }
        #expect(DataPipeline.describeOneRepresentation(fields([("ETag", "\"a\"")]), fields([("etag", "\"a\"")])))
        #expect(!DataPipeline.describeOneRepresentation(fields([("ETag", "\"a\"")]), fields([])))
        #expect(
            DataPipeline.describeOneRepresentation(fields([("Content-Length", "4")]), fields([("Content-Length", "4")]))
        )
        #expect(
            !DataPipeline.describeOneRepresentation(
                fields([("Content-Length", "4")]), fields([("Content-Length", "5")])))
        #expect(DataPipeline.describeOneRepresentation(fields([]), fields([])))
    }
}
