import FixtureServer
import Foundation
import Synchronization
import Testing
import TroveCore
import TroveFetcher

/// Starts a fixture server with `routes`, runs `body`, and stops the server however `body` ends.
func withServer(
    _ routes: [String: FixtureServer.Route],
    _ body: (FixtureServer) async throws -> Void
) async throws {
    let server = FixtureServer(routes: routes)
    try await server.start()
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Waits until `condition` holds, checking every millisecond; records an issue if it never does. For
/// states reached on other tasks (a request queued, a slot taken); nothing here measures time.
func waitUntil(
    _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws {
    for _ in 0..<20_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
}

/// The bytes of a fetch that must have returned a body.
func fetchData(
    _ url: URL, headers: [String: String] = [:], timeout: Duration = .seconds(15),
    fetcher: any Fetcher = HTTPFetcher()
) async throws -> Data {
    switch try await fetcher.fetch(FetchRequest(url: url, headers: headers, timeout: timeout)) {
    case let .data(data, _): return data
    case .notModified: throw TroveError.connectionFailed(url: url.absoluteString, reason: "unexpected 304")
    }
}

/// The error a throwing async call threw, or nil.
func caughtError(_ operation: () async throws -> Void) async -> (any Error)? {
    do {
        try await operation()
        return nil
    } catch {
        return error
    }
}

/// A one-shot barrier a test opens to let waiting work go on.
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state -> Bool in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Test data whose bytes differ from position to position, so truncation or reordering shows.
func patternData(count: Int, seed: UInt8 = 7) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

/// Values reported from other tasks (retry delays, progress), in the order they came.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    func append(_ item: Element) { items.withLock { $0.append(item) } }
    func removeAll() { items.withLock { $0 = [] } }
    var all: [Element] { items.withLock { $0 } }
}
