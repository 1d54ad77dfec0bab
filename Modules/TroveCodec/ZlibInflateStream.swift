import CZlib

/// Inflates one zlib stream, given as pieces of an input buffer (a PNG's IDAT chunks), a slice at a time:
/// for decoders that use each row as it comes instead of holding every inflated byte at once.
final class ZlibInflateStream {
    enum ReadResult: Equatable {
        /// The output buffer is full.
        case filled
        /// The stream ended cleanly after this many bytes of the buffer.
        case ended(produced: Int)
        /// The input ran out before the end of the stream.
        case truncated(produced: Int)
        /// The stream is not valid zlib data.
        case corrupt(String)
    }

    // zlib keeps a pointer back to the stream, so it needs an address that never moves.
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeRawBufferPointer
    private let pieces: [Range<Int>]
    private var pieceIndex = 0
    private var inOffset: Int
    /// Whether the stream's end has been read (a read that fills the buffer exactly may also end it).
    private(set) var ended = false

    /// Nil when zlib cannot start (out of memory). `input` must outlive the stream.
    init?(_ input: UnsafeRawBufferPointer, ranges: [Range<Int>]) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.input = input
        pieces = ranges.filter { !$0.isEmpty && $0.lowerBound >= 0 && $0.upperBound <= input.count }
        inOffset = pieces.first?.lowerBound ?? 0
        guard inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates the next `output.count` bytes of the stream into `output`.
    func read(into output: UnsafeMutableRawBufferPointer) -> ReadResult {
        guard let outBase = output.baseAddress?.assumingMemoryBound(to: Bytef.self) else {
            return ended ? .ended(produced: 0) : .filled
        }
        // avail_in/avail_out are 32-bit, so larger buffers go through in windows.
        let window = Int(UInt32.max)
        var produced = 0
        while produced < output.count {
            if ended { return .ended(produced: produced) }
            if stream.pointee.avail_in == 0, pieceIndex < pieces.count, let inBase = input.baseAddress {
                let piece = pieces[pieceIndex]
                let count = min(piece.upperBound - inOffset, window)
                stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: (inBase + inOffset)
                        .assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = UInt32(count)
                inOffset += count
                if inOffset == piece.upperBound {
                    pieceIndex += 1
                    if pieceIndex < pieces.count { inOffset = pieces[pieceIndex].lowerBound }
                }
            }
            stream.pointee.next_out = outBase + produced
            stream.pointee.avail_out = UInt32(min(output.count - produced, window))
            let availOut = stream.pointee.avail_out
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            produced += Int(availOut - stream.pointee.avail_out)
            switch status {
            case Z_STREAM_END:
                ended = true
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                // No progress was possible: the input is exhausted (more pieces get fed above) or it ran out.
                if stream.pointee.avail_in == 0 && pieceIndex >= pieces.count { return .truncated(produced: produced) }
                if stream.pointee.avail_in == 0 { continue }
                return .corrupt("zlib made no progress")
            case Z_NEED_DICT:
                return .corrupt("stream needs a preset dictionary")
            case Z_MEM_ERROR:
                return .corrupt("out of memory")
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "invalid data (zlib status \(status))"
                return .corrupt(message)
            }
        }
        return .filled
    }
}
