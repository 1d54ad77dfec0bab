import Testing

@testable import TroveServer

@Suite struct AdmissionGateTests {
    @Test func fullGateRejectsAtOnceAndQueuedWorkRunsWhenASlotFrees() async throws {
        let gate = AdmissionGate(limit: 1, queueLimit: 1)
        let (holding, holdingContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await gate.withAdmission(for: "a") {
                holdingContinuation.yield()
                for await _ in release { break }
                return 1
            }
        }
        for await _ in holding { break }
        let queued = Task { try await gate.withAdmission(for: "b") { 2 } }
        while gate.counts.queued < 1 { await Task.yield() }
        // One slot busy, one queue place taken: a third key is turned away without waiting.
        await #expect(throws: AdmissionGate.Full.self) {
            try await gate.withAdmission(for: "c") { 3 }
        }
        // The same key as the running work rides on its slot.
        #expect(try await gate.withAdmission(for: "a") { 4 } == 4)
        releaseContinuation.yield()
        #expect(try await first.value == 1)
        #expect(try await queued.value == 2)
        #expect(gate.counts.running == 0 && gate.counts.queued == 0)
    }

    @Test func cancelledWaiterLeavesTheQueue() async throws {
        let gate = AdmissionGate(limit: 1, queueLimit: 1)
        let (holding, holdingContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await gate.withAdmission(for: "a") {
                holdingContinuation.yield()
                for await _ in release { break }
            }
        }
        for await _ in holding { break }
        let waiter = Task { try await gate.withAdmission(for: "b") {} }
        while gate.counts.queued < 1 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(gate.counts.queued == 0)
        // Its queue place is free again.
        let next = Task { try await gate.withAdmission(for: "c") { 5 } }
        releaseContinuation.yield()
        try await first.value
        #expect(try await next.value == 5)
    }
}
