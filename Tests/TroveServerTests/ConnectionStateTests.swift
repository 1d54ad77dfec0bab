import NIOCore
import Testing

@testable import TroveServer

/// The connection's one state machine, event by event: when a hit may be answered ahead of the router,
/// which deadline holds (from the last completed write), and when a quiesce or an asked-for close goes ahead.
@Suite struct ConnectionStateTests {
    static let timeouts = ConnectionState.Timeouts(head: .seconds(10), keepAlive: .seconds(5), write: .seconds(30))
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func at(_ seconds: Int64) -> NIODeadline { Self.start + .seconds(seconds) }

    @Test func theWaitForTheNextRequestStartsWhenTheAnswersLastByteIsWritten() {
        var state = ConnectionState(timeouts: Self.timeouts, now: Self.start)
        #expect(state.deadline == at(10))
        state.headArrived()
        #expect(state.deadline == nil)
        state.writeQueued(now: at(1))
        #expect(state.deadline == at(31))
        // 20 s to write the answer: past the keep-alive timeout, but the client took bytes all along.
        state.writeQueued(now: at(2))
        #expect(state.writeDone(now: at(15)) == .none)
        #expect(state.deadline == at(45) && state.expiry(at: at(40)) == nil)
        #expect(state.writeDone(now: at(21)) == .none)
        #expect(state.deadline == at(26))
        #expect(state.expiry(at: at(25)) == nil && state.expiry(at: at(26)) == .idle)
    }

    @Test func aClientThatTakesNoBytesForTheWriteTimeoutIsAStalledWriter() {
        var state = ConnectionState(timeouts: Self.timeouts, now: Self.start)
        state.headArrived()
        state.writeQueued(now: at(1))
        #expect(state.expiry(at: at(30)) == nil)
        #expect(state.expiry(at: at(31)) == .stalledWriter)
    }

    @Test func hitsAreAnsweredAheadOnlyWhileNoAnswerOfAnyKindIsPending() {
        var state = ConnectionState(timeouts: Self.timeouts, now: Self.start)
        #expect(state.mayAnswerExpress && state.mayAnswerHit)
        state.writeQueued(now: at(0))
        #expect(!state.mayAnswerHit && !state.mayAnswerExpress)
        _ = state.writeDone(now: at(0))
        state.headHeld()
        #expect(state.mayAnswerHit && !state.mayAnswerExpress)
        state.headReleased(passedOn: true)
        #expect(!state.mayAnswerHit)
        _ = state.answerEnded(now: at(1))
        #expect(state.mayAnswerExpress)
        state.passedToDecoder(wholePlainRequest: false)
        #expect(state.mayAnswerHit && !state.mayAnswerExpress)
        state.decoderRefused()
        #expect(!state.mayAnswerHit)
    }

    @Test func aQuiesceOrAnAskedForCloseWaitsForTheUnwrittenBytes() {
        var state = ConnectionState(timeouts: Self.timeouts, now: Self.start)
        #expect(state.quiesce(now: at(0)) == .close)

        state = ConnectionState(timeouts: Self.timeouts, now: Self.start)
        state.headHeld()
        state.headReleased(passedOn: true)
        #expect(state.quiesce(now: at(0)) == .none)
        #expect(!state.mayAnswerHit)
        state.writeQueued(now: at(1))
        #expect(state.answerEnded(now: at(1)) == .none)
        #expect(state.writeDone(now: at(2)) == .close)

        state = ConnectionState(timeouts: Self.timeouts, now: Self.start)
        state.writeQueued(now: at(1))
        let asked = state.closeAsked()
        #expect(!asked && !state.mayAnswerHit)
        #expect(state.writeDone(now: at(2)) == .performRequestedClose)
        let askedAgain = state.closeAsked()
        #expect(askedAgain)
    }
}
