import FixtureServer
import Foundation
import Synchronization
import Testing
import Trove
import TroveTestSupport

@testable import TroveServer

/// Decodes of large sources run on threads of their own: while such decodes run longer than the request
/// deadline on every core, the server still answers each request 504 when its deadline passes, before the
/// decodes end, and counts the abandoned decodes.
@Suite struct LongDecodeTests {
    static let signer = URLSigner.test

    /// Claims files that start with "TROVE-SLOW", says they are 24 MP, and takes `seconds` to decode each.
    final class SlowDecoder: ImageDecoder {
        let name = "slow"
        let format = ImageFormat(rawValue: "slow")
        let seconds: Double
        let ended = Mutex<[ContinuousClock.Instant]>([])
        init(seconds: Double) { self.seconds = seconds }

        func canDecode(_ header: Data) -> Bool { header.starts(with: Array("TROVE-SLOW".utf8)) }
        func info(_ data: Data) throws -> ImageInfo? { ImageInfo(format: format, width: 6000, height: 4000) }
        func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
            Thread.sleep(forTimeInterval: seconds)
            ended.withLock { $0.append(.now) }
            return Image(width: 8, height: 8, pixels: [UInt8](repeating: 200, count: 256))
        }
    }

    @Test func requestsPastTheirDeadlineAreAnsweredWhileTheirDecodesRun() async throws {
        let decoder = SlowDecoder(seconds: 4)
        var registry = try ServerHarness.registry()
        try registry.register(decoder: decoder)
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        var routes: [String: FixtureServer.Route] = [:]
        for index in 0..<count {
            routes["/slow-\(index)"] = .file(Data("TROVE-SLOW \(index)".utf8), contentType: "image/png")
        }
        let harness = try await ServerHarness.start(origin: FixtureServer(routes: routes), registry: registry) {
            $0.keys = [Self.signer.key]
            $0.salts = [Self.signer.salt]
            $0.pipeline.requestDeadline = .seconds(1)
            $0.maxConcurrency = count
        }
        defer { Task { await harness.stop() } }
        let answers = try await withThrowingTaskGroup(of: (Int, ContinuousClock.Instant).self) { group in
            for index in 0..<count {
                let path = Self.signer.signed("/rs:fit:4:4/plain/\(harness.origin.url("/slow-\(index)"))@png")
                group.addTask { (Int(try await harness.request(path).status.code), .now) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Every request was answered 504 before the first decode ended: no decode held a thread the deadline's
        // timer needed.
        #expect(answers.allSatisfy { $0.0 == 504 }, "\(answers.map(\.0))")
        let firstEnd = await {
            _ = await eventually(within: .seconds(20)) { decoder.ended.withLock { $0.count } == count }
            return decoder.ended.withLock { $0.min() }
        }()
        let lastAnswer = try #require(answers.map(\.1).max())
        #expect(firstEnd.map { lastAnswer < $0 } == true, "an answer waited for a decode to end")
        #expect(await eventually { (try? await harness.metric("trove_decodes_abandoned_total")) ?? 0 >= Double(count) })
    }
}
