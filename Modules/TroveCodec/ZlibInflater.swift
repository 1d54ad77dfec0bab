/// Inflates one zlib stream, given as pieces of an input buffer (a PNG's IDAT chunks), into one
/// caller-owned output buffer in one go, without copying the pieces together first: a whole-buffer
/// reading of `ZlibInflateStream`.
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
        guard !output.isEmpty else { return .outputFull }
        guard let stream = ZlibInflateStream(input, ranges: ranges) else {
            return .corrupt("zlib could not start (out of memory)")
        }
        switch stream.read(into: output) {
        case .filled: return stream.ended ? .finished(produced: output.count) : .outputFull
        case let .ended(produced): return .finished(produced: produced)
        case let .truncated(produced): return .truncated(produced: produced)
        case let .corrupt(reason): return .corrupt(reason)
        }
    }
}
