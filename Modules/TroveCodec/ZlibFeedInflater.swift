import CZlib

/// Inflates one zlib stream fed in pieces as they arrive, into one output buffer the caller keeps: for
/// decoding a PNG while it downloads. Unlike `ZlibInflateStream` it holds no input between calls.
final class ZlibFeedInflater {
    enum Outcome: Equatable {
        /// All the input was used; `produced` bytes of output so far.
        case needsInput(produced: Int)
        /// The stream ended after `produced` bytes.
        case ended(produced: Int)
        /// The stream has more output than fits.
        case outputFull
        /// Not valid zlib data.
        case corrupt(String)
    }

    // zlib keeps a pointer back to the stream, so it needs an address that never moves.
    private let stream: UnsafeMutablePointer<z_stream>
    private(set) var produced = 0
    private(set) var ended = false

    /// Nil when zlib cannot start (out of memory).
    init?() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
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

    /// Inflates all of `input` into `output` after the bytes produced so far. `output` must be the same
    /// buffer on every call.
    func feed(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Outcome {
        // Bytes after the stream's end are ignored, as the full decode ignores them.
        guard !ended else { return .ended(produced: produced) }
        guard let inBase = input.baseAddress, !input.isEmpty else { return .needsInput(produced: produced) }
        guard let outBase = output.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return .outputFull }
        // avail_in/avail_out are 32-bit; PNG chunks are under 2^31 bytes, and the output is sized by the limits.
        let window = Int(UInt32.max)
        var used = 0
        while true {
            if stream.pointee.avail_in == 0 {
                guard used < input.count else { return .needsInput(produced: produced) }
                let count = min(input.count - used, window)
                stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: (inBase + used).assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = UInt32(count)
                used += count
            }
            guard produced < output.count else { return .outputFull }
            stream.pointee.next_out = outBase + produced
            stream.pointee.avail_out = UInt32(min(output.count - produced, window))
            let availOut = stream.pointee.avail_out
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            produced += Int(availOut - stream.pointee.avail_out)
            switch status {
            case Z_STREAM_END:
                ended = true
                stream.pointee.avail_in = 0
                return .ended(produced: produced)
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                // No progress: this piece is used up (more comes next call), or the output is full.
                if stream.pointee.avail_in == 0 { continue }
                return produced >= output.count ? .outputFull : .corrupt("zlib made no progress")
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
