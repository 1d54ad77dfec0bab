import Testing
import TroveCore

@Suite struct DurationUnitsTests {
    @Test func nanosecondsTruncateAndClamp() {
        #expect(Duration.milliseconds(50).nanoseconds == 50_000_000)
        #expect((Duration.seconds(2) + .nanoseconds(7)).nanoseconds == 2_000_000_007)
        // Below a nanosecond is dropped, toward zero as Duration's components are.
        #expect(Duration(secondsComponent: 1, attosecondsComponent: 999_999_999).nanoseconds == 1_000_000_000)
        #expect(Duration.milliseconds(-3).nanoseconds == -3_000_000)
        #expect(Duration.zero.nanoseconds == 0)
        // Past Int64's nanoseconds (about 292 years) it clamps rather than traps.
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
        #expect(Duration.seconds(9_223_372_036).nanoseconds == 9_223_372_036_000_000_000)
    }
}
