import TroveCore

/// A row sink for decoder tests: keeps every row it is given and the distinct buffers they came from, and
/// throws `TroveError.cancelled` once `stopAfter` rows have arrived (to show a decoder stops).
public final class CollectingRowSink: ImageRowSink {
    /// What `begin` was told.
    public private(set) var header: RowStreamHeader?
    /// Every row so far, RGBA8, one after another.
    public private(set) var pixels: [UInt8] = []
    /// Rows received.
    public private(set) var rows = 0
    /// The distinct row buffers the decoder handed over (one, for a decoder that reuses its buffer).
    public private(set) var buffers = Set<UnsafePointer<UInt8>>()
    /// Rows accepted before the sink throws.
    public var stopAfter = Int.max

    /// An empty sink.
    public init() {}

    /// Keeps the header.
    public func begin(_ header: RowStreamHeader) throws { self.header = header }

    /// Keeps one row, or throws once `stopAfter` rows have come.
    public func consume(_ row: UnsafePointer<UInt8>) throws {
        guard rows < stopAfter else { throw TroveError.cancelled }
        rows += 1
        buffers.insert(row)
        pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: (header?.width ?? 0) * 4))
    }
}
