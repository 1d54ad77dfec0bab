import TroveCore

/// A row sink for decoder tests: keeps every row it is given and the distinct buffers they came from, and
/// throws `TroveError.cancelled` once `stopAfter` rows have arrived (to show a decoder stops).
package final class CollectingRowSink: ImageRowSink {
    /// What `begin` was told.
    package private(set) var header: RowStreamHeader?
    /// Every row so far, RGBA8, one after another.
    package private(set) var pixels: [UInt8] = []
    /// Rows received.
    package private(set) var rows = 0
    /// The distinct row buffers the decoder handed over (one, for a decoder that reuses its buffer).
    package private(set) var buffers = Set<UnsafePointer<UInt8>>()
    /// Rows accepted before the sink throws.
    package var stopAfter = Int.max

    /// An empty sink.
    package init() {}

    /// Keeps the header.
    package func begin(_ header: RowStreamHeader) throws { self.header = header }

    /// Keeps one row, or throws once `stopAfter` rows have come.
    package func consume(_ row: UnsafePointer<UInt8>) throws {
        guard rows < stopAfter else { throw TroveError.cancelled }
        rows += 1
        buffers.insert(row)
        pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: (header?.width ?? 0) * 4))
    }
}
