import Foundation

/// What a caller asks of a pipeline: a URL, what to do to the image, and how to use the caches.
public struct ImageRequest: Sendable {
    /// Where the image comes from; its scheme picks the fetcher (http, https, file, data, ...).
    public var url: URL
    /// Processing steps, run in order on the decoded image; their identifiers are part of the cache key.
    public var transforms: [any ImageTransformer]
    /// Scheduling priority while the fetch waits for a slot (default `.normal`).
    public var priority: RequestPriority
    /// How the request uses the memory and disk caches (default `.useCache`).
    public var cachePolicy: CachePolicy
    /// Per-request switches (default none).
    public var options: Options
    /// Replaces the URL as the raw-data cache key (e.g. a signed URL whose query changes).
    public var customCacheKey: String?
    /// Sent with this request's fetch, on top of the pipeline's headers.
    public var headers: [String: String]
    /// Encoding of the processed data; nil keeps the original bytes when there are no transforms
    /// and uses PNG when there are (or the source's format, with `encodesInSourceFormat`).
    public var outputFormat: ImageFormat?
    /// Encoder settings for this request (quality, ...), in place of the pipeline's. Setting them asks for
    /// an encoded result even without transforms, and they are part of the cache key.
    public var encodingOptions: EncodingOptions?
    /// Free-form values for plugins and hooks.
    public var userInfo: [String: String]
    /// Overrides every freshness rule for this request: a cached copy older than this is revalidated or
    /// fetched again, a younger one is used as is. Such requests are answered from disk, not memory.
    public var maxAge: Duration?
    /// Asks for the source image's placeholder in `ImageResponse.placeholder` (nil: none). It is computed once
    /// per source from a reduced decode and kept with the cached original, so it changes neither the result
    /// nor its cache key; see `ImagePipeline.placeholder(for:kind:)`.
    public var placeholder: PlaceholderKind?

    /// Per-request switches: retrying recent failures, keeping processed results off the disk, encoding in
    /// the source's format, previews while the image downloads, keeping the source's colour profile, dropping its
    /// copyright notice, keeping the stored orientation.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Fetch even if this URL failed for a lasting reason recently.
        public static let retryFailed = Options(rawValue: 1 << 0)
        /// Keep a processed (transformed, encoded) result off the disk: it is neither stored there nor read
        /// from there, so each new process transforms again (the original stays cached). Without it a
        /// request with transforms stores its result, and a later one, in any process, reads and decodes
        /// that small result instead of the original.
        public static let skipsProcessedDiskStore = Options(rawValue: 1 << 1)
        /// With no `outputFormat`, encode a processed result in the source's format when an encoder for it
        /// is registered (PNG when none is), as an image proxy does.
        public static let encodesInSourceFormat = Options(rawValue: 1 << 2)
        /// While a JPEG or PNG downloads, deliver `.preview` events of it as it fills in (after each
        /// progressive scan, each Adam7 pass, else the rows so far), at most one per `previewInterval`,
        /// with the request's transforms applied. Previews are never cached.
        public static let deliversPreviews = Options(rawValue: 1 << 3)
        /// Keep the source's ICC profile instead of converting to sRGB: the pixels stay as stored and the
        /// encoder embeds the profile (PNG iCCP, JPEG APP2, WebP ICCP, AVIF and HEIC colr). Sources with no
        /// RGB or gray profile to embed (CMYK, CICP, PNG gamma) are still converted to sRGB.
        public static let keepsColorProfile = Options(rawValue: 1 << 4)
        /// Leave the source's copyright notice (EXIF Copyright and Artist, the XMP and IPTC-IIM rights fields)
        /// out of a processed result. Without it the notice is kept, as imgproxy's `keep_copyright` does by
        /// default; other metadata never is.
        public static let dropsCopyright = Options(rawValue: 1 << 5)
        /// Keep the pixels as stored instead of turning them upright by the source's orientation (EXIF, or the
        /// HEIF family's `irot` and `imir`), and write that orientation into the output so it still displays as
        /// the source does: EXIF in JPEG, PNG and WebP, `irot`/`imir` in AVIF and HEIC, the codestream's in JPEG
        /// XL. Without it (the default) every size, box and crop applies to the picture as displayed.
        public static let keepsStoredOrientation = Options(rawValue: 1 << 6)
        /// The caller reads only the response's `data` and `format` (`trove serve` sends bytes): a result made
        /// from YCbCr planes then skips building the RGBA image `ImageResponse.image` carries, which is left
        /// empty (0x0). Such a request never shares a job with one that wants pixels, and its response is not
        /// kept in memory. Not part of the cache key: the bytes are the same.
        package static let needsOnlyData = Options(rawValue: 1 << 7)
    }

    /// A request for `url`. The defaults: no transforms, normal priority, `.useCache`, no options, the URL as cache
    /// key, no extra headers, no encoding settings (the original bytes when there are no transforms), no `maxAge`.
    public init(
        url: URL, transforms: [any ImageTransformer] = [], priority: RequestPriority = .normal,
        cachePolicy: CachePolicy = .useCache, options: Options = [], customCacheKey: String? = nil,
        headers: [String: String] = [:], outputFormat: ImageFormat? = nil,
        encodingOptions: EncodingOptions? = nil, userInfo: [String: String] = [:], maxAge: Duration? = nil
    ) {
        self.url = url
        self.transforms = transforms
        self.priority = priority
        self.cachePolicy = cachePolicy
        self.options = options
        self.customCacheKey = customCacheKey
        self.headers = headers
        self.outputFormat = outputFormat
        self.encodingOptions = encodingOptions
        self.userInfo = userInfo
        self.maxAge = maxAge
    }
}
