import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `/metrics` shows what the result cache counts (buffers as allocated, not only their bytes) beside the
/// process's resident memory, and when the cache is full.
@Suite struct MemoryGaugeTests {
    static func origin() throws -> FixtureServer {
        try FixtureServer(serving: TestImages.folder, under: "/images/")
    }

    @Test func theResultCacheCountsItsBuffersAsAllocated() async throws {
        let harness = try await ServerHarness.start(origin: Self.origin()) { $0.resultMemoryBytes = 32 << 20 }
        defer { Task { await harness.stop() } }
        var bodies: [Int] = []
        for width in [30, 31, 32] {
            let response = try await harness.request(
                "/_/rs:fit:\(width):\(width)/plain/\(harness.origin.url("/images/chelsea.png"))@png")
            #expect(response.status == .ok)
            bodies.append(response.bytes.count)
        }
        #expect(try await harness.metric("trove_serve_result_cache_entries") == 3)
        #expect(try await harness.metric("trove_serve_result_cache_limit_bytes") == Double(32 << 20))
        #expect(try await harness.metric("trove_serve_result_cache_evictions_total") == 0)
        // Each body's buffer is its length rounded up to a power of two, plus its headers and bookkeeping.
        let buffers = bodies.map { 1 << (Int.bitWidth - ($0 - 1).leadingZeroBitCount) }.reduce(0, +)
        let counted = try await harness.metric("trove_serve_result_cache_bytes")
        #expect(counted >= Double(buffers + 3 * 1024))
        #expect(counted <= Double(buffers + 3 * 8192))
        // The pipeline keeps no decoded images in a server: its cache holds nothing.
        #expect(try await harness.metric("trove_memory_cache_entries") == 0)
        #if os(Linux)
            #expect(try await harness.metric("process_resident_memory_bytes") > Double(10 << 20))
        #endif
    }

    @Test func aFullResultCacheCountsItsEvictionsAndStaysWithinItsLimit() async throws {
        let limit = 128 << 10
        let harness = try await ServerHarness.start(origin: Self.origin()) { $0.resultMemoryBytes = limit }
        defer { Task { await harness.stop() } }
        // 60 small JPEGs of about 5 KB counted each: every one is admitted (under a tenth of the limit), and
        // together they hold more than twice the limit.
        for width in 20..<80 {
            let response = try await harness.request(
                "/_/rs:fit:\(width):\(width)/plain/\(harness.origin.url("/images/chelsea.png"))@jpg")
            #expect(response.status == .ok)
        }
        let entries = try await harness.metric("trove_serve_result_cache_entries")
        let evictions = try await harness.metric("trove_serve_result_cache_evictions_total")
        #expect(entries > 0 && evictions > 0)
        #expect(entries + evictions == 60)
        #expect(try await harness.metric("trove_serve_result_cache_bytes") <= Double(limit))
        // Read again: the counter does not count the same evictions twice.
        #expect(try await harness.metric("trove_serve_result_cache_evictions_total") == evictions)
    }
}
