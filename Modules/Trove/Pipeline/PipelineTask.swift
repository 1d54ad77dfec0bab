import TroveCore

/// A running request: its events as an `AsyncSequence`, its final response, and handles to re-prioritise
/// or cancel it. Cancelling answers this caller at once; work shared with other callers carries on for them.
public final class PipelineTask<Response: Sendable>: Sendable {
    /// Progress, then `.cached` (refresh only), then `.final`; the stream ends with the request's error if it fails.
    public let events: AsyncThrowingStream<PipelineEvent<Response>, any Error>
    private let work: Task<Response, any Error>
    private let changePriority: @Sendable (RequestPriority) -> Void

    init(
        run:
            @escaping @Sendable (_ emit: @escaping @Sendable (PipelineEvent<Response>) -> Void) async throws -> Response,
        changePriority: @escaping @Sendable (RequestPriority) -> Void
    ) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: PipelineEvent<Response>.self)
        events = stream
        work = Task {
            do {
                let response = try await run { continuation.yield($0) }
                continuation.finish()
                return response
            } catch {
                // A check for cancellation deep in the work says it in the pipeline's own words.
                let error = error is CancellationError ? TroveError.cancelled : error
                continuation.finish(throwing: error)
                throw error
            }
        }
        self.changePriority = changePriority
    }

    /// The final response (waits for it).
    public var response: Response {
        get async throws { try await work.value }
    }

    /// Changes the priority of the fetch this request waits on, while it is still queued.
    public func setPriority(_ priority: RequestPriority) {
        changePriority(priority)
    }

    /// Cancels this caller's request: `response` and `events` end with an error; a fetch other callers share
    /// carries on for them.
    public func cancel() {
        work.cancel()
    }
}

/// A running `ImagePipeline` request.
public typealias ImageTask = PipelineTask<ImageResponse>
