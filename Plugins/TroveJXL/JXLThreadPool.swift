import CJXL

/// libjxl's thread pool (libjxl_threads) for one decode or encode, destroyed with it. Absent for one
/// thread: libjxl then runs on the calling thread.
final class JXLThreadPool {
    let runner: UnsafeMutableRawPointer?

    /// A pool of `threads` workers, or none when `threads` is 1 or less.
    init(threads: Int) {
        runner = threads > 1 ? JxlThreadParallelRunnerCreate(nil, threads) : nil
    }

    deinit {
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
    }

    /// Runs `decoder`'s work on the pool; false when libjxl refused it.
    func attach(decoder: OpaquePointer) -> Bool {
        guard let runner else { return true }
        return JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS
    }

    /// Runs `encoder`'s work on the pool; false when libjxl refused it.
    func attach(encoder: OpaquePointer) -> Bool {
        guard let runner else { return true }
        return JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner) == JXL_ENC_SUCCESS
    }
}
