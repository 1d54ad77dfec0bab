import Foundation
import TroveCore
import TroveDiskCache
import TrovePlaceholders
import TroveTransformers

extension ImagePipeline {
    /// The placeholder of the image at `url`: a ThumbHash (base64) or a BlurHash (base 83) of the picture as
    /// displayed (its orientation applied), for an app to show blurred while the image loads.
    ///
    /// The bytes come through the caches as for `image(for:)` (disk, the shared tier, else the network), and
    /// are decoded reduced: the decoder shrinks on load to the smallest size still at least twice 100 pixels
    /// on the long side, the rows are resized to at most 100x100 as they arrive, and the placeholder is hashed
    /// from that. The string is then kept with the cached original (in its disk entry's header, and in the
    /// shared tier beside it), so a later call, in any process on the same cache, answers without reading or
    /// decoding the image. A new response from the origin starts without one.
    ///
    /// Any image gets a placeholder, however small, flat or transparent. Bytes that do not decode throw what
    /// `image(for:)` throws for them.
    public func placeholder(for url: URL, kind: PlaceholderKind = .thumbHash) async throws -> String {
        try await placeholder(for: ImageRequest(url: url), kind: kind)
    }

    /// The placeholder of the image `request` names, fetched with its headers, cache key, cache policy and
    /// priority (its transforms and output settings are not used: a placeholder is of the source). See
    /// `placeholder(for:kind:)`. `.reloadIgnoringCache` and a request's `maxAge` compute it again.
    public func placeholder(for request: ImageRequest, kind: PlaceholderKind) async throws -> String {
        if case let .blurHash(x, y) = kind, !BlurHash.componentRange.contains(x) || !BlurHash.componentRange.contains(y)
        {
            throw TroveError.invalidTransformParameter(
                transform: "blurhash", parameter: "components", reason: "must be 1...9 each, got \(x)x\(y)")
        }
        let source = Self.placeholderSource(of: request)
        let key = cacheKey(for: source)
        let headers = parts.headers(request.headers)
        let computesAgain = request.cachePolicy == .reloadIgnoringCache || request.maxAge != nil
        if !computesAgain, let kept = await parts.keptPlaceholder(kind.identifier, forKey: key.raw, headers: headers) {
            return kept
        }
        return try await placeholderLoads.value(
            forKey: WorkKey(key.raw, .placeholder(kind.identifier), policy: request.cachePolicy),
            as: JobWaiter(priority: request.priority, url: request.url), onJoin: parts.recordJoin
        ) { job in
            try await self.computePlaceholder(kind, source: source, key: key, job: job)
        }
    }

    /// The response with the placeholder its request asks for (`ImageRequest.placeholder`), if any.
    func attachingPlaceholder(_ response: ImageResponse, for request: ImageRequest) async throws -> ImageResponse {
        guard let kind = request.placeholder else { return response }
        // The response's own load already brought the original up to date (a reload, a refresh, a max age):
        // the placeholder takes it from the cache rather than fetching it again.
        var source = request
        if source.cachePolicy == .reloadIgnoringCache || source.cachePolicy == .refresh {
            source.cachePolicy = .useCache
        }
        source.maxAge = nil
        var response = response
        response.placeholder = try await placeholder(for: source, kind: kind)
        return response
    }

    /// What a placeholder is computed from: the request's source, fetched as it says, shrunk to fit in
    /// 100x100 (ThumbHash's largest input, and plenty for a BlurHash) and turned upright.
    private static func placeholderSource(of request: ImageRequest) -> ImageRequest {
        let side = ThumbHash.maximumInputSide
        // No copyright notice is read: nothing of it reaches a placeholder.
        var options: ImageRequest.Options = [.dropsCopyright]
        if request.options.contains(.retryFailed) { options.insert(.retryFailed) }
        return ImageRequest(
            url: request.url, transforms: [ResizeTransformer(width: side, height: side, mode: .fit)],
            priority: request.priority, cachePolicy: request.cachePolicy, options: options,
            customCacheKey: request.customCacheKey, headers: request.headers, maxAge: request.maxAge)
    }

    /// The original's bytes through `original` (the placeholder's job waiting on the raw key's), decoded
    /// reduced, hashed, and the string kept.
    private func computePlaceholder(
        _ kind: PlaceholderKind, source: ImageRequest, key: CacheKey, job: JobHandle
    ) async throws -> String {
        let rawRequest = RawRequest(
            url: source.url, key: key.raw, policy: source.cachePolicy,
            retryFailed: source.options.contains(.retryFailed), headers: source.headers, waiter: job.asWaiter(),
            maxAge: source.maxAge)
        let raw =
            source.cachePolicy == .reloadIgnoringCache
            ? try await self.fetch(rawRequest) : try await self.original(rawRequest)

        try await parts.sourceGuard.refusePoisoned(source.url)
        let probe = try await decode.probe(raw, for: source, key: key)
        let reservation = try await reserveDecodeMemory(
            for: probe, key: key.processed, transforms: source.transformsAsRun)
        defer { reservation?.release() }
        let threads = probe.threads
        let (decoded, remaining) = try await decode.run(
            (raw: raw, request: source, key: key, probe: probe, threads: threads))
        try Task.checkCancellation()
        let parts = self.parts
        let make: @Sendable () throws -> String = {
            try parts.sourceGuard.journaling(source.url) {
                try Self.placeholder(kind, of: try decoded.transformed(by: remaining, keepsColorProfile: false))
            }
        }
        let value = if let threads { try await threads.run(make) } else { try make() }
        if raw.storable && !raw.isStale && source.cachePolicy != .memoryOnly {
            let entry = await parts.freshMetadata(forKey: key.raw, headers: parts.headers(source.headers))
            parts.cacheWriter.storePlaceholder(
                value, kind: kind.identifier, forKey: key.raw, entry: entry.map { (key: $0.0, metadata: $0.1) },
                raw: raw)
        }
        return value
    }

    /// The placeholder string of a decoded image (at most 100x100 for a ThumbHash); its first frame for an
    /// animation.
    package static func placeholder(_ kind: PlaceholderKind, of image: Image) throws -> String {
        let rgba = image.convertedToRGBA8()
        do {
            switch kind {
            case .thumbHash:
                return ThumbHash.base64String(
                    try ThumbHash.encode(rgba: rgba.pixels, width: rgba.width, height: rgba.height))
            case let .blurHash(x, y):
                return try BlurHash.encode(
                    rgba: rgba.pixels, width: rgba.width, height: rgba.height, xComponents: x, yComponents: y)
            }
        } catch let error as PlaceholderError {
            throw TroveError.encodingFailed(format: ImageFormat(rawValue: kind.identifier), reason: error.description)
        }
    }
}

extension PipelineParts {
    /// A placeholder kept with the cached original for a request sending `headers`: in its disk entry's
    /// header (read without the payload; a variant index leads to the variant), else in the shared tier's
    /// small value beside it. Only while the original is fresh; nil otherwise.
    func keptPlaceholder(_ kind: String, forKey key: String, headers: [String: String]) async -> String? {
        if let (_, metadata) = await freshMetadata(forKey: key, headers: headers),
            let value = metadata.placeholders[kind]
        {
            return value
        }
        guard let shared, let entry = try? await shared.entry(forKey: CacheKey.placeholders(of: key)),
            entry.metadata.selecting.isEmpty || Vary.matches(entry.metadata.selecting, headers)
        else { return nil }
        return entry.metadata.placeholders[kind]
    }

    /// The metadata of the fresh entry that answers `key` for a request sending `headers`, and the key it is
    /// stored under (a variant's, behind an index), read without any payload.
    func freshMetadata(forKey key: String, headers: [String: String]) async -> (String, DiskEntryMetadata)? {
        guard let diskCache else { return nil }
        var entryKey = key
        var metadata = try? await diskCache.metadata(forKey: key)
        if let names = metadata?.variantNames {
            entryKey = CacheKey.variant(of: key, selecting: Vary.selecting(names, in: headers))
            metadata = try? await diskCache.metadata(forKey: entryKey)
        }
        guard let metadata else { return nil }
        if !metadata.selecting.isEmpty && !Vary.matches(metadata.selecting, headers) { return nil }
        return (entryKey, metadata)
    }
}
