/// A count-min sketch of 4-bit counters that ages, as TinyLFU uses it (Einziger, Friedman and Manes,
/// 2017). It estimates how often a key was seen recently in a few bytes per tracked key: each key
/// maps to one counter in each of four rows and its estimate is the smallest of the four. After
/// `sampleSize` additions that changed a counter, every counter is halved, so old popularity fades.
///
/// The table is one array of words holding sixteen counters each; a row picks a word and a counter
/// in it from its own remix of the key hash.
struct CountMinSketch: Sendable {
    private var table: [UInt64]
    private let wordMask: UInt64
    /// Additions since the last halving.
    private(set) var additions = 0
    /// Counted additions between halvings: ten per expected entry, as Caffeine sizes its sample.
    let sampleSize: Int
    /// How many distinct keys the table was sized for.
    let expectedEntries: Int

    static let maximumCount = 15

    /// Sized for about `expectedEntries` keys in the cache (rounded up to a power of two, at least 16).
    init(expectedEntries: Int) {
        var words = 16
        while words < expectedEntries, words < 1 << 26 { words <<= 1 }
        table = [UInt64](repeating: 0, count: words)
        wordMask = UInt64(words - 1)
        self.expectedEntries = words
        sampleSize = 10 * max(expectedEntries, 16)
    }

    /// The estimated count of `keyHash`, 0...15.
    func frequency(_ keyHash: Int) -> Int {
        var smallest = UInt64(Self.maximumCount)
        for row in 0..<4 {
            let (word, shift) = position(keyHash, row: row)
            smallest = min(smallest, (table[word] >> shift) & 0xF)
        }
        return Int(smallest)
    }

    /// Counts one more sighting of `keyHash`; returns true when this addition triggered a halving.
    @discardableResult
    mutating func increment(_ keyHash: Int) -> Bool {
        // Minimal increment (conservative update): only the counters at the minimum grow, so keys
        // sharing a counter with a popular one are overestimated less.
        var words = (0, 0, 0, 0), shifts: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        (words.0, shifts.0) = position(keyHash, row: 0)
        (words.1, shifts.1) = position(keyHash, row: 1)
        (words.2, shifts.2) = position(keyHash, row: 2)
        (words.3, shifts.3) = position(keyHash, row: 3)
        let counts = (
            (table[words.0] >> shifts.0) & 0xF, (table[words.1] >> shifts.1) & 0xF,
            (table[words.2] >> shifts.2) & 0xF, (table[words.3] >> shifts.3) & 0xF
        )
        let smallest = min(counts.0, counts.1, counts.2, counts.3)
        // A sighting of a key whose counters are all saturated changes nothing and, as in Caffeine,
        // does not advance the sample either: hot keys do not hasten aging.
        guard smallest < 15 else { return false }
        // Two rows can pick the same counter: each is read again before it grows, so a shared counter
        // grows once (twice would carry into its neighbour, or overflow the word from the top nibble).
        incrementIfAt(smallest, word: words.0, shift: shifts.0)
        incrementIfAt(smallest, word: words.1, shift: shifts.1)
        incrementIfAt(smallest, word: words.2, shift: shifts.2)
        incrementIfAt(smallest, word: words.3, shift: shifts.3)
        return countAddition()
    }

    @inline(__always)
    private mutating func incrementIfAt(_ count: UInt64, word: Int, shift: UInt64) {
        if (table[word] >> shift) & 0xF == count { table[word] += 1 << shift }
    }

    private mutating func countAddition() -> Bool {
        additions += 1
        guard additions >= sampleSize else { return false }
        halve()
        return true
    }

    /// Halves every counter: the aging step.
    mutating func halve() {
        table.withUnsafeMutableBufferPointer { words in
            for index in words.indices { words[index] = (words[index] >> 1) & 0x7777_7777_7777_7777 }
        }
        additions /= 2
    }

    mutating func removeAll() {
        table.withUnsafeMutableBufferPointer { words in
            for index in words.indices { words[index] = 0 }
        }
        additions = 0
    }

    /// Row `row`'s word index and bit shift for a key: a different 64-bit mix per row.
    @inline(__always)
    private func position(_ keyHash: Int, row: Int) -> (word: Int, shift: UInt64) {
        let mixed = Self.mix(UInt64(bitPattern: Int64(keyHash)) &+ Self.rowSeeds[row])
        return (Int(mixed & wordMask), (mixed >> 60) << 2)
    }

    private static let rowSeeds: [UInt64] = [
        0x97CB_3127_7FD1_4E0B, 0xC3A5_C85C_97CB_3127,
        0xB492_B66F_BE98_F273, 0x9AE1_6A3B_2F90_404F
    ]

    /// A 64-bit finaliser (the MurmurHash3 fmix64 constants): nearby inputs land far apart.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x = (x ^ (x >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        x = (x ^ (x >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return x ^ (x >> 33)
    }
}
