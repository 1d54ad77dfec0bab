import TroveCore

/// Passes a decoder's rows on unchanged and keeps what its header says of their colours, which the sink
/// after it (a resize) leaves off its result: the caller converts that result instead of every source row.
final class RowColorTap: ImageRowSink {
    private let next: any ImageRowSink
    /// The header's colour description, once the decoder has begun.
    private(set) var description: ColorDescription?

    init(next: any ImageRowSink) {
        self.next = next
    }

    func begin(_ header: RowStreamHeader) throws {
        description = header.colorDescription
        try next.begin(header)
    }

    func consume(_ row: UnsafePointer<UInt8>) throws {
        try next.consume(row)
    }
}
