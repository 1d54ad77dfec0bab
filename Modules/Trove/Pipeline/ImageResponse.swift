import Foundation
import TroveCore

/// What a pipeline hands back: the image, its bytes, and where it came from.
public struct ImageResponse: Sendable {
    /// The decoded image, after the delegate's `didDecode` and the request's transforms.
    public var image: Image
    /// The original bytes when the request has no transforms and no output format; otherwise the
    /// processed image encoded (PNG unless the request says otherwise; an animation in WebP, when an encoder
    /// writes WebP, so it keeps its frames).
    public var data: Data
    /// The format `data` is in: the source's for original bytes, the encoder's for a processed result.
    public var format: ImageFormat
    /// Which tier answered: memory, disk, the shared tier, or the network.
    public var source: ResultSource
    /// The keys the raw bytes and the processed result are cached under.
    public var cacheKey: CacheKey
    /// True when this is a cached copy past its freshness, delivered because the origin failed for a
    /// transient reason (stale-if-error), because `refresh` could not reach it, or while it is revalidated
    /// behind the answer (stale-while-revalidate).
    public var isStale = false
    /// The request fields that selected the source's response (`Vary`): a cached copy answers only a
    /// request that sends the same values.
    package var selecting: [SelectingField] = []
    /// The source image's placeholder, when the request asked for one (`ImageRequest.placeholder`): a
    /// ThumbHash in base64 or a BlurHash, as `ImagePipeline.placeholder(for:kind:)` gives it.
    public var placeholder: String?

    /// Bytes the memory cache charges for keeping it: the image's buffers and the encoded bytes as
    /// allocated, the key strings, and about what one entry's bookkeeping takes beside them.
    var memoryCost: Int {
        image.cost + data.count + cacheKey.raw.utf8.count + cacheKey.processed.utf8.count
            + (placeholder?.utf8.count ?? 0) + Self.entryOverhead
    }

    /// The structs, their reference-counted boxes and the cache's slot for one entry, rounded up.
    static let entryOverhead = 1024
}
