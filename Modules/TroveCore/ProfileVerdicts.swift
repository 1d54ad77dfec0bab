import Synchronization

/// Yes-or-no answers about ICC profiles, kept by the profile's bytes, for a question that takes far longer to
/// answer than to look up. Bounded: when full it starts over, so a stream of distinct profiles costs one
/// lookup each, and only profiles of at most `largestKept` bytes are kept (cameras' and phones' are 0.5-20 KB;
/// a file may carry megabytes), so it holds at most `capacity` of those.
package final class ProfileVerdicts: Sendable {
    /// A profile's bytes as a dictionary key, hashed in one pass (an array of bytes hashes each byte on its own).
    private struct Profile: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private let capacity: Int
    private let verdicts = Mutex<[Profile: Bool]>([:])
    /// The largest profile kept, 64 KiB; a larger one is answered each time.
    package static let largestKept = 64 << 10

    /// Kept answers for at most `capacity` profiles (at least one).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many answers are kept now.
    package var count: Int { verdicts.withLock { $0.count } }

    /// The kept answer for `bytes`, or `answer(bytes)` now, kept for next time.
    package func verdict(for bytes: [UInt8], answer: ([UInt8]) -> Bool) -> Bool {
        guard bytes.count <= Self.largestKept else { return answer(bytes) }
        let profile = Profile(bytes: bytes)
        if let known = verdicts.withLock({ $0[profile] }) { return known }
        // Answered outside the lock: two threads may answer the same profile once each, alike.
        let verdict = answer(bytes)
        verdicts.withLock { verdicts in
            if verdicts.count >= capacity { verdicts.removeAll(keepingCapacity: true) }
            verdicts[profile] = verdict
        }
        return verdict
    }
}
