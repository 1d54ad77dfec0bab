/// Entry ids in ascending order (ids grow with arrival, so this is arrival order), with cheap removal at
/// both ends and by id. Popping the front only advances an index, so a long FIFO queue drains in O(1) per pop.
struct SortedIDQueue {
    private var ids: [UInt64] = []
    private var head = 0

    var isEmpty: Bool { head == ids.count }
    var count: Int { ids.count - head }
    var first: UInt64? { isEmpty ? nil : ids[head] }
    var last: UInt64? { isEmpty ? nil : ids[ids.count - 1] }

    mutating func insert(_ id: UInt64) {
        if ids.last.map({ $0 < id }) ?? true {
            ids.append(id)  // the usual case: a new arrival has the largest id
        } else {
            ids.insert(id, at: lowerBound(of: id))
        }
    }

    @discardableResult
    mutating func remove(_ id: UInt64) -> Bool {
        let index = lowerBound(of: id)
        guard index < ids.count, ids[index] == id else { return false }
        if index == head {
            removeFirst()
        } else {
            ids.remove(at: index)
        }
        return true
    }

    mutating func removeFirst() {
        guard !isEmpty else { return }
        head += 1
        if head == ids.count {
            ids.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64, head * 2 > ids.count {
            ids.removeFirst(head)  // compact once the dead prefix outweighs the live part
            head = 0
        }
    }

    mutating func removeLast() {
        guard !isEmpty else { return }
        ids.removeLast()
        if isEmpty {
            ids.removeAll(keepingCapacity: true)
            head = 0
        }
    }

    private func lowerBound(of id: UInt64) -> Int {
        var low = head
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
