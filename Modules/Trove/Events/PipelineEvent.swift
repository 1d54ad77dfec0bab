import TroveCore

/// One step of a request's life, in order: progress while bytes arrive, with previews among them when the
/// request asked for them; with the `refresh` policy the cached result first; then the final result.
public enum PipelineEvent<Response: Sendable>: Sendable {
    /// Body bytes received so far (and the expected length, when known), while the body arrives.
    case progress(FetchProgress)
    /// A partial image decoded from the bytes so far (a progressive JPEG's scans, a PNG's Adam7 passes,
    /// else the rows so far), each better than the last; only for image requests with `.deliversPreviews`. Its `data` is
    /// empty, and it is never cached.
    case preview(Response)
    /// The cached result, delivered first under the `refresh` policy, before revalidation.
    case cached(Response)
    /// The request's result; the last event.
    case final(Response)
}

/// An event of an `ImagePipeline` request.
public typealias ImageEvent = PipelineEvent<ImageResponse>
