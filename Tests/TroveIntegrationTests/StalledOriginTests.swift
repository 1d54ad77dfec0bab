import FixtureServer
import Foundation
import Testing
import Trove

/// An origin that accepts the connection and never answers: the pipeline gives up with the stall named, and
/// retries only while a whole idle timeout fits before the request's deadline.
@Suite struct StalledOriginTests {
    private static let retries = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))

    @Test func aStallThatLeavesNoRoomForAnotherFailsOnceWithTheStallNamed() async throws {
        let never = FixtureGate()
        try await withServerAndCache(["/stalled.png": .gated(Data(), contentType: "image/png", gate: never)]) {
            server, directory in
            // The configured idle timeout and deadline stand in for the defaults (15 s, 20 s) at a test's scale.
            let pipeline = try makePipeline(directory) {
                $0.fetchTimeout = .milliseconds(900)
                $0.requestDeadline = .milliseconds(1500)
                $0.retryPolicy = Self.retries
            }
            let url = server.url("/stalled.png")
            let error = await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: url) }
            never.open()
            #expect(error == .timedOut(url: url.absoluteString, after: .milliseconds(900)))
            #expect(error?.description.contains("the origin sent nothing for 0.9 seconds") == true)
            #expect(server.requestCount(for: "/stalled.png") == 1)
        }
    }

    @Test func aStallIsRetriedWhileAWholeIdleTimeoutFits() async throws {
        let never = FixtureGate()
        try await withServerAndCache(["/stalled.png": .gated(Data(), contentType: "image/png", gate: never)]) {
            server, directory in
            let pipeline = try makePipeline(directory) {
                $0.fetchTimeout = .milliseconds(300)
                $0.requestDeadline = .seconds(30)
                $0.retryPolicy = Self.retries
            }
            let url = server.url("/stalled.png")
            let error = await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: url) }
            never.open()
            #expect(error == .timedOut(url: url.absoluteString, after: .milliseconds(300)))
            #expect(server.requestCount(for: "/stalled.png") == 3)
        }
    }

    @Test func theDefaultsGiveUpOnAStallBeforeTheDeadline() {
        let defaults = PipelineConfiguration.memoryOnly
        #expect(defaults.fetchTimeout == .seconds(15) && defaults.requestDeadline == .seconds(20))
        let stall = TroveError.timedOut(url: "u", after: defaults.fetchTimeout)
        let remaining = defaults.requestDeadline - defaults.fetchTimeout
        #expect(!defaults.retryPolicy.shouldRetry(stall, afterAttempt: 0, delay: .zero, remaining: remaining))
    }
}
