import Synchronization
import TroveFetcher

/// A resolver for made-up names, so address tests never touch DNS or any address beyond loopback. A name
/// with several answers gives them in turn (the last one from then on), to model DNS rebinding.
final class StubResolver: HostResolver {
    private let state: Mutex<(answers: [String: [[IPAddress]]], asked: [String])>

    init(_ answers: [String: [String]]) {
        self.state = Mutex((answers.mapValues { [$0.compactMap(IPAddress.init)] }, []))
    }

    init(turns: [String: [[String]]]) {
        self.state = Mutex((turns.mapValues { $0.map { $0.compactMap(IPAddress.init) } }, []))
    }

    /// Every name asked for, in order.
    var asked: [String] { state.withLock { $0.asked } }

    func addresses(of host: String) async throws -> [IPAddress] {
        try state.withLock { state in
            state.asked.append(host)
            guard var turns = state.answers[host], let answer = turns.first else {
                throw HostResolutionError(host: host, reason: "not a stubbed name")
            }
            if turns.count > 1 { turns.removeFirst() }
            state.answers[host] = turns
            return answer
        }
    }
}
