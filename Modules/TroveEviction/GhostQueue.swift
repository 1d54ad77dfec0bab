/// A FIFO of recently evicted key hashes, bounded by the cost they had: S3-FIFO's ghost queue.
/// Membership is a dictionary lookup; records removed early (a ghost hit) are skipped lazily when
/// they reach the front, and compacted away once they make up most of the queue.
struct GhostQueue {
    private var members: [Int: (sequence: Int, cost: Int)] = [:]
    private var records: [(keyHash: Int, sequence: Int)] = []
    private var front = 0
    private var nextSequence = 0
    private(set) var cost = 0

    var count: Int { members.count }

    /// Remembers `keyHash`, then forgets the oldest until the total cost is within `limit`.
    mutating func add(_ keyHash: Int, cost entryCost: Int, limit: Int) {
        if let old = members[keyHash] { cost -= old.cost }
        members[keyHash] = (nextSequence, entryCost)
        records.append((keyHash, nextSequence))
        nextSequence += 1
        cost += entryCost
        while cost > limit, front < records.count {
            let oldest = records[front]
            front += 1
            if let member = members[oldest.keyHash], member.sequence == oldest.sequence {
                members.removeValue(forKey: oldest.keyHash)
                cost -= member.cost
            }
        }
        compactIfMostlyStale()
    }

    /// Forgets `keyHash`; true when it was remembered.
    mutating func remove(_ keyHash: Int) -> Bool {
        guard let member = members.removeValue(forKey: keyHash) else { return false }
        cost -= member.cost
        return true
    }

    mutating func removeAll() { self = GhostQueue() }

    private mutating func compactIfMostlyStale() {
        let live = records.count - front
        guard live > 64, live > 2 * members.count else { return }
        let members = self.members
        records = records[front...].filter { members[$0.keyHash]?.sequence == $0.sequence }
        front = 0
    }
}
