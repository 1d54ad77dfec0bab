import TroveCore

/// One step of a request's life, in order: progress while bytes arrive; with the `refresh` policy the
/// cached result first; then the final result.
public enum PipelineEvent<Response: Sendable>: Sendable {
    /// Body bytes received so far (and the expected length, when known), while the body arrives.
    case progress(FetchProgress)
    /// The cached result, delivered first under the `refresh` policy, before revalidation.
    case cached(Response)
    /// The request's result; the last event.
    case final(Response)
}

/// An event of an `ImagePipeline` request.
public typealias ImageEvent = PipelineEvent<ImageResponse>
