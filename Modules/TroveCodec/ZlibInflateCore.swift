import CZlib

/// One zlib inflate stream, begun with its owner and ended with it, and the single inflate step that the
/// piece-wise inflaters (`ZlibInflateStream`, `ZlibFeedInflater`) repeat; each feeds input its own way.
final class ZlibInflateCore {
    /// What one inflate call did.
    enum Step: Equatable {
        /// Output was written or input consumed; call again.
        case progressed
        /// The stream ended cleanly.
        case ended
        /// No progress was possible: the input is used up or the output is full.
        case stalled
        /// The data is not valid zlib (or zlib ran out of memory), with zlib's reason.
        case failed(String)
    }

    // zlib keeps a pointer back to the stream, so it needs an address that never moves.
    private let stream: UnsafeMutablePointer<z_stream>

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

    /// The largest piece zlib takes at once: its counters are 32-bit.
    static let window = Int(UInt32.max)

    /// Whether the input given last is used up.
    var needsInput: Bool { stream.pointee.avail_in == 0 }

    /// Gives zlib the next `count` input bytes (at most `window`); they must stay valid until used up.
    func supply(_ bytes: UnsafeRawPointer, count: Int) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(count)
    }

    /// Drops what is left of the input (bytes after the stream's end).
    func discardInput() {
        stream.pointee.avail_in = 0
    }

    /// One inflate call into `output` after its first `produced` bytes, adding what it wrote to `produced`.
    func step(into output: UnsafeMutablePointer<Bytef>, capacity: Int, produced: inout Int) -> Step {
        stream.pointee.next_out = output + produced
        stream.pointee.avail_out = UInt32(min(capacity - produced, Self.window))
        let availOut = stream.pointee.avail_out
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        produced += Int(availOut - stream.pointee.avail_out)
        switch status {
        case Z_STREAM_END: return .ended
        case Z_OK: return .progressed
        case Z_BUF_ERROR: return .stalled
        case Z_NEED_DICT: return .failed("stream needs a preset dictionary")
        case Z_MEM_ERROR: return .failed("out of memory")
        default:
            return .failed(stream.pointee.msg.map { String(cString: $0) } ?? "invalid data (zlib status \(status))")
        }
    }
}
