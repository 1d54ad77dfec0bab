import AsyncHTTPClient
import Dispatch
import Foundation
import NIOPosix
import Testing
import TroveCore
import TroveFetcher

/// A fetch is started on its client's event loop (`HTTPExchange`). A caller cancelled while that start
/// waits for the loop must get `cancelled` without a request, or even a connection, reaching the origin.
@Suite struct HTTPFetcherCancelBeforeStartTests {
    @Test func aFetchCancelledWhileItsStartWaitsForTheLoopOpensNoConnection() async throws {
        let listener = try BacklogListener()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let fetcher = HTTPFetcher(
            client: HTTPClient(eventLoopGroup: group, configuration: HTTPFetcher.defaultClientConfiguration),
            owned: true)
        // The group's one loop is busy until the gate opens, so the fetch's start queues up behind it.
        let gate = DispatchSemaphore(value: 0)
        let loopHeld = DispatchSemaphore(value: 0)
        group.next().execute {
            loopHeld.signal()
            gate.wait()
        }
        loopHeld.wait()
        let url = URL(string: "http://127.0.0.1:\(listener.port)/a.jpg")!
        let fetch = Task { try await fetcher.fetch(FetchRequest(url: url, timeout: .seconds(5))) }
        // Long enough for the fetch to reach the loop's queue; had it not, it is cancelled before
        // sending anyway, and the expectations below hold the same.
        try await Task.sleep(for: .milliseconds(200))
        fetch.cancel()
        gate.signal()
        let error = await #expect(throws: TroveError.self) { _ = try await fetch.value }
        #expect(error == .cancelled)
        // A connection the client had started would be in the listener's backlog by now.
        try await Task.sleep(for: .milliseconds(200))
        #expect(listener.connectionsOpened() == 0)
        try await fetcher.shutdown()
        try await group.shutdownGracefully()
    }
}
