import CZlib

/// Inflates one zlib stream, given as pieces of an input buffer (a PNG's IDAT chunks), into one
/// caller-owned output buffer, without copying the pieces together first.
enum ZlibInflater {
    enum Outcome: Equatable {
        /// The stream ended cleanly after producing this many bytes.
        case finished(produced: Int)
        /// The input ran out before the end of the stream.
        case truncated(produced: Int)
        /// The stream holds more data than fits in the output buffer.
        case outputFull
        /// The stream is not valid zlib data.
        case corrupt(String)
    }

    /// Inflates `input[ranges]` (in order) into `output`. Callers who need exactly N bytes pass a buffer of
    /// N + 1 bytes, so that a stream that is too long shows up as `outputFull` instead of fitting by chance.
    static func inflate(_ input: UnsafeRawBufferPointer, ranges: [Range<Int>],
                        into output: UnsafeMutableRawBufferPointer) -> Outcome {
        guard let outBase = output.baseAddress?.assumingMemoryBound(to: Bytef.self), !output.isEmpty else {
            return .outputFull
        }
        // zlib keeps a pointer back to the stream, so it needs an address that never moves.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deinitialize(count: 1); stream.deallocate() }
        guard inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .corrupt("zlib could not start (out of memory)")
        }
        defer { inflateEnd(stream) }

        let pieces = ranges.filter { !$0.isEmpty && $0.lowerBound >= 0 && $0.upperBound <= input.count }
        var pieceIndex = 0
        var inOffset = pieces.first?.lowerBound ?? 0
        var produced = 0
        // avail_in/avail_out are 32-bit, so larger buffers go through in windows.
        let window = Int(UInt32.max)

        while true {
            if stream.pointee.avail_in == 0, pieceIndex < pieces.count, let inBase = input.baseAddress {
                let piece = pieces[pieceIndex]
                let count = min(piece.upperBound - inOffset, window)
                stream.pointee.next_in = UnsafeMutablePointer(mutating: (inBase + inOffset)
                    .assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = UInt32(count)
                inOffset += count
                if inOffset == piece.upperBound {
                    pieceIndex += 1
                    if pieceIndex < pieces.count { inOffset = pieces[pieceIndex].lowerBound }
                }
            }
            if stream.pointee.avail_out == 0 {
                if produced == output.count { return .outputFull }
                stream.pointee.next_out = outBase + produced
                stream.pointee.avail_out = UInt32(min(output.count - produced, window))
            }
            let availOut = stream.pointee.avail_out
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            produced += Int(availOut - stream.pointee.avail_out)
            switch status {
            case Z_STREAM_END:
                return .finished(produced: produced)
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                // No progress was possible: either the output is full (the loop checks) or input is exhausted.
                if stream.pointee.avail_out == 0 { continue }
                if stream.pointee.avail_in == 0 && pieceIndex >= pieces.count { return .truncated(produced: produced) }
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
    }
}
