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

    private let core: ZlibInflateCore
    private(set) var produced = 0
    private(set) var ended = false

    /// Nil when zlib cannot start (out of memory).
    init?() {
        guard let core = ZlibInflateCore() else { return nil }
        self.core = core
    }

    /// Inflates all of `input` into `output` after the bytes produced so far. `output` must be the same
    /// buffer on every call.
    func feed(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Outcome {
        // Bytes after the stream's end are ignored, as the full decode ignores them.
        guard !ended else { return .ended(produced: produced) }
        guard let inBase = input.baseAddress, !input.isEmpty else { return .needsInput(produced: produced) }
        guard let outBase = output.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return .outputFull }
        var used = 0
        while true {
            if core.needsInput {
                guard used < input.count else { return .needsInput(produced: produced) }
                let count = min(input.count - used, ZlibInflateCore.window)
                core.supply(inBase + used, count: count)
                used += count
            }
            guard produced < output.count else { return .outputFull }
            switch core.step(into: outBase, capacity: output.count, produced: &produced) {
            case .ended:
                ended = true
                core.discardInput()
                return .ended(produced: produced)
            case .progressed:
                continue
            case .stalled:
                // This piece is used up (more comes next call), or the output is full.
                if core.needsInput { continue }
                return produced >= output.count ? .outputFull : .corrupt("zlib made no progress")
            case let .failed(reason):
                return .corrupt(reason)
            }
        }
    }
}
