import TroveCore

/// One step of a request's life, in order: progress while bytes arrive; with the `refresh` policy the
/// cached result first; then the final result.
public enum PipelineEvent<Response: Sendable>: Sendable {
    case progress(FetchProgress)
    case cached(Response)
    case final(Response)
}

public typealias ImageEvent = PipelineEvent<ImageResponse>
