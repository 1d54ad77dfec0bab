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
    static let shared = WeightTableCache(capacity: 64)

    private let capacity: Int
    private let tables = Mutex<[Key: WeightTable]>([:])

    /// A cache of at most `capacity` tables; when full it starts over, so an odd mix of sizes costs no more
    /// than no cache.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The table for this geometry, built on first use.
    func table(
        inputSize: Int, boxStart: Double, boxLength: Double, count: Int, filter: ResizeTransformer.Filter
    ) throws -> WeightTable {
        let key = Key(inputSize: inputSize, boxStart: boxStart, boxLength: boxLength, count: count, filter: filter)
        if let table = tables.withLock({ $0[key] }) { return table }
        // Built outside the lock: two threads may build the same table once each, and both are right.
        let table = try WeightTable(
            inputSize: inputSize, boxStart: boxStart, boxLength: boxLength, count: count, filter: filter)
        tables.withLock { tables in
            if tables.count >= capacity { tables.removeAll(keepingCapacity: true) }
            tables[key] = table
        }
        return table
    }
}
