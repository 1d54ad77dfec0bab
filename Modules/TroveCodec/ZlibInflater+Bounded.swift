extension ZlibInflater {
    /// The whole of the zlib stream `input[range]` inflated, or nil when it is damaged, empty, or inflates past
    /// `limit` bytes. For a PNG's small compressed chunks (a profile, a text), whose inflated size is stored
    /// nowhere: the output grows fourfold from a guess until the stream fits.
    static func inflated(_ input: UnsafeRawBufferPointer, range: Range<Int>, limit: Int) -> [UInt8]? {
        // One byte past the limit, so a stream of exactly `limit` bytes fits and a longer one fills it.
        var capacity = min(max(range.count * 4, 4 << 10), limit + 1)
        while true {
            var produced = 0
            var full = false
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                switch inflate(input, ranges: [range], into: UnsafeMutableRawBufferPointer(buffer)) {
                case .finished(let count): produced = count
                case .outputFull: full = true
                case .truncated, .corrupt: break
                }
                initialized = produced
            }
            if !full { return produced > 0 && produced <= limit ? output : nil }
            guard capacity <= limit else { return nil }
            capacity = min(capacity * 4, limit + 1)
        }
    }
}
