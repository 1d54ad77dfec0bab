/// Links of doubly linked lists of slots, threaded through one array so nodes need no allocation.
/// One `SlotLinks` serves all the lists of a policy, since a slot sits in at most one list at a time.
/// A node's links and list id share one array element (12 bytes), so a hit that moves a slot touches
/// one cache line per neighbour instead of one per field.
struct SlotLinks {
    struct Node {
        /// Neighbour toward the head (newer); -1 at the head.
        var prev: Int32
        /// Neighbour toward the tail (older); -1 at the tail.
        var next: Int32
        /// The id of the list the slot sits in; -1 when it is in none (untracked).
        var home: Int8

        static let untracked = Node(prev: -1, next: -1, home: -1)
    }

    var nodes: [Node] = []

    /// Makes room for `slot` (slots are dense, so this grows by appending).
    @inline(__always)
    mutating func reserve(_ slot: Int) {
        if slot >= nodes.count {
            precondition(slot < Int(Int32.max), "slot \(slot) is beyond the 32-bit links")
            nodes.append(contentsOf: repeatElement(.untracked, count: slot + 1 - nodes.count))
        }
    }

    mutating func removeAll() { nodes.removeAll(keepingCapacity: true) }

    /// Whether `slot` sits in any list.
    @inline(__always)
    func isTracked(_ slot: Int) -> Bool { slot >= 0 && slot < nodes.count && nodes[slot].home >= 0 }

    /// The list `slot` sits in (-1: none); `slot` must have been reserved.
    @inline(__always)
    func home(_ slot: Int) -> Int8 { nodes[slot].home }

    /// The neighbour toward the head (newer), -1 at the head.
    @inline(__always)
    func newer(_ slot: Int) -> Int { Int(nodes[slot].prev) }
}

/// One list over `SlotLinks`: the head is the newest end, the tail the oldest.
struct SlotList {
    let id: Int8
    private(set) var head = -1
    private(set) var tail = -1
    private(set) var count = 0

    init(id: Int8) { self.id = id }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func pushFront(_ slot: Int, _ links: inout SlotLinks) {
        links.nodes[slot] = SlotLinks.Node(prev: -1, next: Int32(truncatingIfNeeded: head), home: id)
        if head >= 0 { links.nodes[head].prev = Int32(truncatingIfNeeded: slot) } else { tail = slot }
        head = slot
        count += 1
    }

    @inline(__always)
    mutating func remove(_ slot: Int, _ links: inout SlotLinks) {
        let node = links.nodes[slot]
        let before = Int(node.prev), after = Int(node.next)
        if before >= 0 { links.nodes[before].next = node.next } else { head = after }
        if after >= 0 { links.nodes[after].prev = node.prev } else { tail = before }
        links.nodes[slot] = .untracked
        count -= 1
    }

    @inline(__always)
    mutating func moveToFront(_ slot: Int, _ links: inout SlotLinks) {
        guard slot != head else { return }
        remove(slot, &links)
        pushFront(slot, &links)
    }

    /// Removes and returns the oldest slot.
    mutating func popBack(_ links: inout SlotLinks) -> Int? {
        let last = tail
        guard last >= 0 else { return nil }
        remove(last, &links)
        return last
    }

    mutating func removeAll() {
        head = -1; tail = -1; count = 0
    }
}

/// One list together with its links: the whole state of single-list policies (LRU, FIFO), kept in
/// one struct so each policy call makes one exclusive access to it.
struct LinkedSlots {
    private(set) var links = SlotLinks()
    private(set) var list = SlotList(id: 0)

    var count: Int { list.count }

    @inline(__always)
    func isTracked(_ slot: Int) -> Bool { links.isTracked(slot) }

    /// Adds an untracked slot at the head; a tracked one just moves there.
    mutating func pushFront(_ slot: Int) {
        links.reserve(slot)
        if links.isTracked(slot) { return list.moveToFront(slot, &links) }
        list.pushFront(slot, &links)
    }

    /// Moves a slot to the head; no-op when untracked.
    @inline(__always)
    mutating func moveToFront(_ slot: Int) {
        guard links.isTracked(slot) else { return }
        list.moveToFront(slot, &links)
    }

    /// Removes a slot; no-op when untracked.
    mutating func remove(_ slot: Int) {
        guard links.isTracked(slot) else { return }
        list.remove(slot, &links)
    }

    mutating func popBack() -> Int? { list.popBack(&links) }

    mutating func removeAll() {
        links.removeAll()
        list.removeAll()
    }
}
