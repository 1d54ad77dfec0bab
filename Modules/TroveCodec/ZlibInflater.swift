import CDeflate

/// Inflates one zlib stream, given as pieces of an input buffer (a PNG's IDAT chunks), into one
/// caller-owned output buffer in one go. libdeflate does the work: with the whole input at hand and the
/// output's size known it is 1.4-2x faster than zlib here. A stream libdeflate rejects is read again by
/// `ZlibInflateStream`, which can tell a truncated stream from a corrupt one and name zlib's reason.
enum ZlibInflater {
    enum Outcome: Equatable {
        /// The stream ended cleanly after producing this many bytes.
        case finished(produced: Int)
        /// The input ran out before the end of the stream.
        case truncated(produced: Int)
        /// The stream holds more data than fits in the output buffer (which holds its first bytes only when
        /// asked for them: `keepsPrefix`).
        case outputFull
        /// The stream is not valid zlib data.
        case corrupt(String)
    }

    /// Inflates `input[ranges]` (in order) into `output`. Callers who need exactly N bytes pass a buffer of
    /// N + 1 bytes, so that a stream that is too long shows up as `outputFull` instead of fitting by chance.
    /// With `keepsPrefix`, an `outputFull` output holds the stream's first bytes (a PNG's scanlines, read as
    /// libpng reads a stream longer than its header); without, it is undefined and costs no second inflate.
    static func inflate(
        _ input: UnsafeRawBufferPointer, ranges: [Range<Int>],
        into output: UnsafeMutableRawBufferPointer, keepsPrefix: Bool = false
    ) -> Outcome {
        guard !output.isEmpty else { return .outputFull }
        let result = withContiguous(input, ranges: ranges) { stream in
            decompressWithLibdeflate(stream, into: output)
        }
        switch result {
        case let .success(produced): return .finished(produced: produced)
        // libdeflate leaves a buffer it ran out of undefined: zlib fills it with the stream's first bytes.
        case .insufficientSpace where keepsPrefix: return diagnose(input, ranges: ranges, into: output)
        case .insufficientSpace: return .outputFull
        case .rejected: return diagnose(input, ranges: ranges, into: output)
        }
    }

    private enum LibdeflateResult {
        case success(Int)
        case insufficientSpace
        /// Bad data, a short stream, or no memory for the decompressor: zlib says which.
        case rejected
    }

    private static func decompressWithLibdeflate(
        _ stream: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) -> LibdeflateResult {
        guard let decompressor = libdeflate_alloc_decompressor() else { return .rejected }
        defer { libdeflate_free_decompressor(decompressor) }
        var produced = 0
        // libdeflate wants a valid pointer even for an empty input.
        var empty: UInt8 = 0
        let status = withUnsafeMutablePointer(to: &empty) { emptyPointer in
            libdeflate_zlib_decompress(
                decompressor, stream.baseAddress ?? UnsafeRawPointer(emptyPointer), stream.count,
                output.baseAddress, output.count, &produced)
        }
        switch status {
        case LIBDEFLATE_SUCCESS: return .success(produced)
        case LIBDEFLATE_INSUFFICIENT_SPACE: return .insufficientSpace
        default: return .rejected
        }
    }

    /// Runs `body` on the pieces as one buffer: the input itself when there is one piece (the usual PNG),
    /// else a copy of the pieces joined (compressed data, small beside the output).
    private static func withContiguous<R>(
        _ input: UnsafeRawBufferPointer, ranges: [Range<Int>],
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        if ranges.count == 1, let only = ranges.first {
            return body(UnsafeRawBufferPointer(rebasing: input[only]))
        }
        let joined = UnsafeMutableRawBufferPointer.allocate(
            byteCount: ranges.reduce(0) { $0 + $1.count },
            alignment: 1)
        defer { joined.deallocate() }
        var offset = 0
        for range in ranges where !range.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: joined[offset..<offset + range.count])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: input[range]))
            offset += range.count
        }
        return body(UnsafeRawBufferPointer(joined))
    }

    /// zlib's reading of a stream libdeflate rejected or could not fit: truncated, corrupt (with zlib's
    /// reason), the output filled, or, should the two ever disagree, zlib's result.
    private static func diagnose(
        _ input: UnsafeRawBufferPointer, ranges: [Range<Int>],
        into output: UnsafeMutableRawBufferPointer
    ) -> Outcome {
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
