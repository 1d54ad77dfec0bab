/// Links of doubly linked lists of slots, threaded through two arrays so nodes need no allocation.
/// One `SlotLinks` serves all the lists of a policy, since a slot sits in at most one list at a time.
struct SlotLinks {
    /// Neighbour toward the head (newer); -1 at the head.
    var prev: [Int] = []
    /// Neighbour toward the tail (older); -1 at the tail.
    var next: [Int] = []
    /// The id of the list a slot sits in; -1 when it is in none (untracked).
    var home: [Int8] = []

    /// Makes room for `slot` (slots are dense, so this grows by appending).
    @inline(__always)
    mutating func reserve(_ slot: Int) {
        if slot >= prev.count {
            let missing = slot + 1 - prev.count
            prev.append(contentsOf: repeatElement(-1, count: missing))
            next.append(contentsOf: repeatElement(-1, count: missing))
            home.append(contentsOf: repeatElement(-1, count: missing))
        }
    }

    mutating func removeAll() {
        prev.removeAll(keepingCapacity: true)
        next.removeAll(keepingCapacity: true)
        home.removeAll(keepingCapacity: true)
    }

    /// Whether `slot` sits in any list.
    @inline(__always)
    func isTracked(_ slot: Int) -> Bool { slot >= 0 && slot < home.count && home[slot] >= 0 }
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
        links.prev[slot] = -1
        links.next[slot] = head
        if head >= 0 { links.prev[head] = slot } else { tail = slot }
        head = slot
        links.home[slot] = id
        count += 1
    }

    @inline(__always)
    mutating func remove(_ slot: Int, _ links: inout SlotLinks) {
        let before = links.prev[slot], after = links.next[slot]
        if before >= 0 { links.next[before] = after } else { head = after }
        if after >= 0 { links.prev[after] = before } else { tail = before }
        links.prev[slot] = -1
        links.next[slot] = -1
        links.home[slot] = -1
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
