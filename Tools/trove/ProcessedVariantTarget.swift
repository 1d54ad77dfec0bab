import Foundation
import Trove

/// What `trove prefetch --transform` warms: each URL's processed variant (its original along the way), through
/// the whole image pipeline, so a later request with the same transforms is a disk hit.
struct ProcessedVariantTarget: PrefetchTarget {
    let pipeline: ImagePipeline
    let transforms: [any ImageTransformer]
    let outputFormat: ImageFormat?
    let options: ImageRequest.Options

    func prefetch(_ url: URL, priority: RequestPriority, destination: PrefetchDestination, retryFailed: Bool)
        async throws -> PrefetchedItem
    {
        let request = ImageRequest(
            url: url, transforms: transforms, priority: priority,
            options: retryFailed ? options.union(.retryFailed) : options, outputFormat: outputFormat)
        let response = try await pipeline.image(for: request)
        return PrefetchedItem(source: response.source, bytes: response.data.count)
    }

    func flush() async { await pipeline.flush() }
}
