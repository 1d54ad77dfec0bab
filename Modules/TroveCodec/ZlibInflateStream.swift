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

    private let core: ZlibInflateCore
    private let input: UnsafeRawBufferPointer
    private let pieces: [Range<Int>]
    private var pieceIndex = 0
    private var inOffset: Int
    /// Whether the stream's end has been read (a read that fills the buffer exactly may also end it).
    private(set) var ended = false

    /// Nil when zlib cannot start (out of memory). `input` must outlive the stream.
    init?(_ input: UnsafeRawBufferPointer, ranges: [Range<Int>]) {
        guard let core = ZlibInflateCore() else { return nil }
        self.core = core
        self.input = input
        pieces = ranges.filter { !$0.isEmpty && $0.lowerBound >= 0 && $0.upperBound <= input.count }
        inOffset = pieces.first?.lowerBound ?? 0
    }

    /// Inflates the next `output.count` bytes of the stream into `output`.
    func read(into output: UnsafeMutableRawBufferPointer) -> ReadResult {
        guard let outBase = output.baseAddress?.assumingMemoryBound(to: Bytef.self) else {
            return ended ? .ended(produced: 0) : .filled
        }
        var produced = 0
        while produced < output.count {
            if ended { return .ended(produced: produced) }
            if core.needsInput, pieceIndex < pieces.count, let inBase = input.baseAddress {
                let piece = pieces[pieceIndex]
                let count = min(piece.upperBound - inOffset, ZlibInflateCore.window)
                core.supply(inBase + inOffset, count: count)
                inOffset += count
                if inOffset == piece.upperBound {
                    pieceIndex += 1
                    if pieceIndex < pieces.count { inOffset = pieces[pieceIndex].lowerBound }
                }
            }
            switch core.step(into: outBase, capacity: output.count, produced: &produced) {
            case .ended:
                ended = true
            case .progressed:
                continue
            case .stalled:
                // The input is exhausted (more pieces get fed above) or it ran out.
                if core.needsInput && pieceIndex >= pieces.count { return .truncated(produced: produced) }
                if core.needsInput { continue }
                return .corrupt("zlib made no progress")
            case let .failed(reason):
                return .corrupt(reason)
            }
        }
        return .filled
    }
}
