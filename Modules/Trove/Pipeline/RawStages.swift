/// The stages both pipelines share, below the processed ones: the original on disk, then the fetch (failure
/// memory and coalescing), then the shared tier when there is one, then the origin. Built once per pipeline.
package struct RawStages: Sendable {
    let parts: PipelineParts
    /// Stage 3: the original bytes on disk.
    let originalDisk: OriginalDiskStage
    /// Stages 4–6: failure memory and coalescing, then the shared tier, then the origin.
    let fetch: FetchCoalescingStage

    init(parts: PipelineParts) {
        self.parts = parts
        let origin = OriginStage(parts: parts)
        let sharedTier = parts.shared.map { SharedTierStage(parts: parts, shared: $0, origin: origin) }
        fetch = FetchCoalescingStage(parts: parts, sharedTier: sharedTier, origin: origin)
        originalDisk = OriginalDiskStage(parts: parts, next: fetch)
    }
}
