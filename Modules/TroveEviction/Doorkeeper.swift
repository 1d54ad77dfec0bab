/// TinyLFU's doorkeeper: a Bloom filter in front of the frequency sketch. A key's first sighting in
/// a sample period only sets its bits here, so the many keys seen once never reach the counters;
/// it is cleared whenever the sketch halves.
struct Doorkeeper {
    private var bits: [UInt64]
    private let bitMask: UInt64

    /// 64 bits per expected entry: with three probes, few false positives over a sample period.
    init(expectedEntries: Int) {
        var words = 16
        while words < expectedEntries { words <<= 1 }
        bits = [UInt64](repeating: 0, count: words)
        bitMask = UInt64(words * 64 - 1)
    }

    func contains(_ keyHash: Int) -> Bool {
        let mixed = CountMinSketch.mix(UInt64(bitPattern: Int64(keyHash)) ^ 0x5851_F42D_4C95_7F2D)
        for probe in 0..<3 {
            let bit = (mixed >> (UInt64(probe) * 21)) & bitMask
            if bits[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
        }
        return true
    }

    /// Sets the key's bits; returns true when they were all set already.
    mutating func insert(_ keyHash: Int) -> Bool {
        let mixed = CountMinSketch.mix(UInt64(bitPattern: Int64(keyHash)) ^ 0x5851_F42D_4C95_7F2D)
        var present = true
        for probe in 0..<3 {
            let bit = (mixed >> (UInt64(probe) * 21)) & bitMask
            let word = Int(bit >> 6), flag: UInt64 = 1 << (bit & 63)
            if bits[word] & flag == 0 {
                present = false
                bits[word] |= flag
            }
        }
        return present
    }

    mutating func removeAll() {
        bits.withUnsafeMutableBufferPointer { words in
            for index in words.indices { words[index] = 0 }
        }
    }
}
