import Synchronization

/// Weight tables by the geometry they were built for. A server resizes the same source sizes to the same
/// outputs over and over; building the tables (a sine for every tap) cost as much as a tenth of the
/// resample. Tables never change after they are built, so every resize of that geometry shares one.
final class WeightTableCache: Sendable {
    /// One axis's geometry: everything `WeightTable.init` reads.
    struct Key: Hashable {
        var inputSize: Int
        var boxStart: Double
        var boxLength: Double
        var count: Int
        var filter: ResizeTransformer.Filter
    }

    /// The cache every resampler uses.
    static let shared = WeightTableCache(capacity: 64, byteLimit: 8 << 20)

    private let capacity: Int
    private let byteLimit: Int
    private let state = Mutex<(tables: [Key: WeightTable], bytes: Int)>(([:], 0))

    /// A cache of at most `capacity` tables and `byteLimit` bytes of them; when full it starts over, so an
    /// odd mix of sizes costs no more than no cache. A table over an eighth of `byteLimit` (a huge shrink of
    /// a huge axis) is built each time and never kept.
    init(capacity: Int, byteLimit: Int) {
        self.capacity = capacity
        self.byteLimit = byteLimit
    }

    /// The table for this geometry, built on first use.
    func table(
        inputSize: Int, boxStart: Double, boxLength: Double, count: Int, filter: ResizeTransformer.Filter
    ) throws -> WeightTable {
        let key = Key(inputSize: inputSize, boxStart: boxStart, boxLength: boxLength, count: count, filter: filter)
        if let table = state.withLock({ $0.tables[key] }) { return table }
        // Built outside the lock: two threads may build the same table once each, and both are right.
        let table = try WeightTable(
            inputSize: inputSize, boxStart: boxStart, boxLength: boxLength, count: count, filter: filter)
        let bytes = table.byteCount
        guard bytes <= byteLimit / 8 else { return table }
        state.withLock { state in
            if state.tables.count >= capacity || state.bytes + bytes > byteLimit {
                state.tables.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            if state.tables.updateValue(table, forKey: key) == nil { state.bytes += bytes }
        }
        return table
    }
}
