import Testing
import TroveServer

/// The executor swift-otel's tasks run on under `trove serve --otel`: work that prefers it runs on its own
/// thread, through child tasks, actor hops and `AsyncStream` hand-offs (what the tracer does per span), and
/// finishes with every job run.
@Suite struct TickingTaskExecutorTests {
    @Test func workPreferringItRunsOnItsThreadThroughHopsAndStreams() async {
        let tally = Tally()
        let executor = TickingTaskExecutor.shared
        #expect(!executor.isCurrent)
        let (onItsThread, total) = await withTaskExecutorPreference(executor) {
            let (numbers, continuation) = AsyncStream<Int>.makeStream()
            return await withTaskGroup(of: (Bool, Int).self) { group in
                group.addTask {
                    var sum = 0
                    var everyTurnOnItsThread = true
                    for await number in numbers {
                        await tally.add(number)
                        everyTurnOnItsThread = everyTurnOnItsThread && executor.isCurrent
                        sum += number
                    }
                    return (everyTurnOnItsThread, sum)
                }
                for number in 1...200 { continuation.yield(number) }
                continuation.finish()
                let (consumerOnItsThread, sum) = await group.next() ?? (false, -1)
                return (consumerOnItsThread && executor.isCurrent, sum + (await tally.total))
            }
        }
        #expect(onItsThread)
        #expect(total == 2 * (200 * 201 / 2))
        #expect(!executor.isCurrent)
    }
}

private actor Tally {
    var total = 0
    func add(_ number: Int) { total += number }
}
