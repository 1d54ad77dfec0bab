import Testing
import TroveFetcher

/// The getaddrinfo resolver, on names the machine answers itself (/etc/hosts), so no query leaves it.
@Suite struct SystemHostResolverTests {
    @Test func resolvesLocalhostToLoopback() async throws {
        let addresses = try await SystemHostResolver().addresses(of: "localhost")
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0.addressClass == .loopback })
    }

    @Test func numericHostsComeBackAsTheirAddress() async throws {
        #expect(try await SystemHostResolver().addresses(of: "127.0.0.1") == [.v4(0x7F00_0001)])
    }

    @Test func aCancelledLookupReturnsAtOnce() async throws {
        let task = Task { try await SystemHostResolver().addresses(of: "localhost") }
        task.cancel()
        // Either the lookup won the race or the cancellation did; it never hangs or crashes.
        switch await task.result {
        case let .success(addresses): #expect(!addresses.isEmpty)
        case let .failure(error): #expect(error is CancellationError)
        }
    }
}
