import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Trove
import TroveCore
import TroveFetcher
import TroveImgproxy
import TrovePlaceholders

/// Answers image requests (any path `ProxyRouter` does not route elsewhere, as an imgproxy URL) and
/// `/metrics`. One value shared by every connection; it holds no per-request state.
struct ProxyResponder: Sendable {
    let pipeline: ImagePipeline
    let route: ImgproxyRoute
    /// Checked before the caches are asked, so a source once allowed and cached is not served after its
    /// prefix is gone; the fetcher checks again, with the addresses.
    let sourcePolicy: SourcePolicy
    /// Also checked before the caches for hosts that are addresses (or localhost) as written, so bytes that
    /// an unguarded fetch (a `trove get` on the same directory or shared tier) cached for a private address
    /// are not served. A name's addresses are known only by resolving it, which the fetcher does on a miss.
    let addressPolicy: AddressPolicy
    let gate: AdmissionGate
    let requestLimit: RequestLimit
    /// One production per result at a time: identical requests share its encoded bytes and entity tag.
    let productions = Jobs<String, ServedResult>()
    /// Encoded results by result key; nil with `--no-result-cache`.
    let results: MemoryCache<String, ServedResult>?
    let metrics: ServerMetrics
    let configuration: ServerConfiguration
    let logger: Logger
    /// Error answers and their caching rules.
    let failures: FailureResponses
    /// Sources' caching headers, when `--use-last-modified` or `--cache-control-passthrough` needs them.
    let sourceHeaders: SourceHeaders?

    private let resultCacheControl: String
    private let resultMaxAge: Int

    init(
        pipeline: ImagePipeline, route: ImgproxyRoute, sourcePolicy: SourcePolicy, addressPolicy: AddressPolicy,
        gate: AdmissionGate, requestLimit: RequestLimit, results: MemoryCache<String, ServedResult>?,
        metrics: ServerMetrics, configuration: ServerConfiguration, logger: Logger, sourceHeaders: SourceHeaders? = nil
    ) {
        self.sourceHeaders = sourceHeaders
        self.pipeline = pipeline
        self.route = route
        self.sourcePolicy = sourcePolicy
        self.addressPolicy = addressPolicy
        self.gate = gate
        self.requestLimit = requestLimit
        self.results = results
        self.metrics = metrics
        self.configuration = configuration
        self.logger = logger
        resultCacheControl = "public, max-age=\(configuration.resultMaxAge)"
        resultMaxAge = configuration.resultMaxAge
        failures = FailureResponses(errorMaxAge: configuration.errorMaxAge)
    }

    // MARK: - Images

    func image(path: String, request: Request, head: Bool) async -> Response {
        let hints = route.clientHints ? ClientHints(headers: request.headers, maxWidth: route.maxResultDimension) : nil
        let accept = request.headers[.accept]
        // A request the connection handler looked up already, and found no result for, is not asked again.
        if request.headers[Self.missedField] == nil,
            let hit = cachedAnswer(
                for: resultLookup(path: path, accept: accept, hints: hints),
                conditions: AnswerConditions(request.headers),
                head: head)
        {
            return hit.response
        }
        let plan: ProxyPlan
        do {
            plan = try route.plan(forPath: path, hints: hints)
            try sourcePolicy.check(plan.source)
            try checkWrittenAddress(of: plan.source)
        } catch {
            return failure(ProxyFailure(error), head: head)
        }
        // Kept under the path as verified, never the text as sent.
        let lookup = resultLookup(path: plan.resultPath, accept: accept, hints: hints)
        // An explicit format wins (the reader refused one no encoder writes); otherwise the negotiated one,
        // else (nil) the source's own format.
        let format = lookup.enforced ?? plan.format ?? lookup.accepted
        // Requests for the same result share one production: one admission, one transform, one copy of the
        // bytes and one entity tag, however many ask at once.
        let workKey = (format?.rawValue ?? "") + "\u{0}" + plan.resultKey
        let served: ServedResult
        do {
            // imgproxy's raw: the source's bytes as they are, outside the transform queue.
            let raw = plan.url.options.raw
            let productionKey = raw ? "raw\u{0}" + plan.resultKey : workKey
            served = try await requestLimit.withRequest {
                let limit = configuration.pipeline.requestDeadline, start = ContinuousClock.now
                return try await DecodeMemoryBudget.$waitDeadline.withValue(
                    WholeRequestDeadline.decodeMemoryWaitEnd(within: limit, from: start)
                ) {
                    try await productions.value(
                        forKey: productionKey, deadline: WholeRequestDeadline.starting(within: limit, from: start),
                        onJoin: metrics.sharedResult
                    ) { [self] _ in
                        if raw { return try await sourceBytes(plan) }
                        return try await gate.withAdmission(for: workKey) {
                            try await produce(plan, format: format)
                        }
                    }
                }
            }
        } catch {
            let failure = ProxyFailure(error)
            // The client gets the short message; the log keeps the whole story (which rule, which address).
            if failure.status >= 500 || failure.status == 404 || failure.status == 422 {
                logger.notice("request failed", metadata: ["status": "\(failure.status)", "error": .redacted(error)])
            }
            return self.failure(failure, head: head)
        }
        return finish(served, plan: plan, cacheKey: lookup.key, request: request, head: head)
    }

    /// `HitRequest.missedField`, as Hummingbird's field name.
    private static let missedField = HTTPField.Name(HitRequest.missedField)!

    /// Where an image request's result is kept, and the formats the client's `Accept` negotiates.
    struct ResultLookup {
        /// The path as verified (`ImgproxyRoute.resultPath(forPath:)`: signature included) and what the
        /// client accepts and hints, so a hit is answered without reading the URL again: only a path that was
        /// read, checked and served before can be found.
        let key: String
        /// The best format the client accepts, for a URL that names none.
        let accepted: ImageFormat?
        /// An enforced format the client accepts, which wins over one the URL names.
        let enforced: ImageFormat?
    }

    func resultLookup(path: String, accept: String?, hints: ClientHints?) -> ResultLookup {
        let accepted = route.preferredFormat(accept: accept)
        let enforced = route.enforcedFormat(accept: accept)
        var key = (accepted?.rawValue ?? "") + "\u{0}" + route.resultPath(forPath: path)
        if let enforced { key = enforced.rawValue + "\u{1}" + key }
        if let hints, !hints.isEmpty { key = hints.key + "\u{1}" + key }
        return ResultLookup(key: key, accepted: accepted, enforced: enforced)
    }

    /// The answer to an image request whose result is in the result cache, or nil when it is not; also
    /// what the event loop's hit handlers send (`CachedResultAnswers`).
    func cachedAnswer(for lookup: ResultLookup, conditions: AnswerConditions, head: Bool) -> ResultAnswer? {
        guard let hit = results?.value(forKey: lookup.key) else { return nil }
        metrics.resultCacheHit()
        return answer(hit, conditions: conditions, head: head)
    }

    /// Keeps a result and answers it. A URL that expires (`exp:`) must stop working then: its result is not
    /// kept, and caches in front may keep it only until that moment.
    func finish(
        _ served: ServedResult, plan: ProxyPlan, cacheKey: String, request: Request, head: Bool
    ) -> Response {
        let conditions = AnswerConditions(request.headers)
        guard let expires = plan.url.options.expires else {
            results?.setValue(served, forKey: cacheKey, cost: served.cost(underKey: cacheKey))
            return answer(served, conditions: conditions, head: head).response
        }
        let remaining = min(Double(resultMaxAge), max(0, expires.timeIntervalSinceNow.rounded(.down)))
        return answer(
            served, conditions: conditions, head: head,
            cacheControl: remaining >= 1 ? "public, max-age=\(Int(remaining))" : "no-store"
        ).response
    }

    /// Refuses a source whose host is, as written, an address the policy does not allow.
    func checkWrittenAddress(of source: URL) throws {
        // An s3: source's host is a bucket, reached at the configured endpoint.
        guard source.scheme?.lowercased() != "s3" else { return }
        guard let host = source.host, let written = try? SourceHost(urlHost: host) else { return }
        let address: IPAddress
        switch written {
        case let .address(value): address = value
        case .localhost: address = IPAddress("127.0.0.1")!  // a valid literal
        case .name: return
        }
        if let reason = addressPolicy.refusal(of: address) {
            throw TroveError.sourceNotAllowed(url: source.absoluteString, reason: reason)
        }
    }

    /// Runs the pipeline and packs the result for sending.
    private func produce(_ plan: ProxyPlan, format: ImageFormat?) async throws -> ServedResult {
        let options = plan.url.options
        if let kind = options.placeholder { return try await placeholderImage(plan, kind: kind, format: format) }
        // The server sends bytes: a result made from planes need not build the RGBA image a response carries.
        var requestOptions: ImageRequest.Options = [.needsOnlyData]
        if results == nil { requestOptions.insert(.skipsProcessedDiskStore) }
        let skipProcessing = options.skipProcessing.union(route.skipProcessingFormats)
        if !skipProcessing.isEmpty {
            // imgproxy skips only when the result would be in the source's own format.
            let source = try await pipeline.image(for: route.sourceRequest(for: plan, options: requestOptions))
            if skipProcessing.contains(source.format), plan.format == nil || plan.format == source.format {
                try checkSourceFileSize(source.data.count, plan: plan)
                return packed(source.data, format: source.format, plan: plan, varies: false)
            }
        }
        var format = format
        // With preferred formats, a result in its source's format is only a first try: it is never kept on
        // disk, where a later read could not tell which format its source was.
        let firstOptions =
            format == nil && !route.preferredFormats.isEmpty
            ? requestOptions.union(.skipsProcessedDiskStore) : requestOptions
        var response = try await pipeline.image(
            for: route.imageRequest(for: plan, format: format, options: firstOptions))
        if format == nil, let preferred = route.preferredFormat(for: response) {
            format = preferred
            response = try await pipeline.image(
                for: route.imageRequest(for: plan, format: preferred, options: requestOptions))
        }
        if options.maxBytes > 0, response.data.count > options.maxBytes,
            MaxBytesSearch.formats.contains(response.format)
        {
            let start =
                plan.url.quality(for: response.format, formatQualities: route.formatQualities)
                ?? Int((route.baseEncoding.quality * 100).rounded())
            let search = MaxBytesSearch(
                maxBytes: options.maxBytes, floor: configuration.maxBytesQualityFloor, start: start)
            response = try await search.run(startingWith: response) { [self] quality in
                try await pipeline.image(
                    for: route.imageRequest(for: plan, format: format, options: requestOptions, quality: quality))
            }
        }
        return packed(
            response.data, format: response.format, plan: plan,
            varies: plan.format == nil || !route.enforcedFormats.isEmpty)
    }

    /// `trove_placeholder`: the source's placeholder (from the cache when it was computed before: no image byte
    /// read, nothing decoded) decoded into a small image, ThumbHash's own size or a BlurHash 32 pixels on its
    /// long side at the ThumbHash's aspect ratio, then the URL's transforms, encoded in the format asked for
    /// (negotiated, else PNG).
    private func placeholderImage(_ plan: ProxyPlan, kind: PlaceholderKind, format: ImageFormat?) async throws
        -> ServedResult
    {
        let source = route.sourceRequest(for: plan, options: [])
        let shape = try ThumbHash.hash(fromBase64: try await pipeline.placeholder(for: source, kind: .thumbHash))
        var decoded = try ThumbHash.decode(shape)
        if case .blurHash = kind {
            let ratio = try ThumbHash.aspectRatio(of: shape)
            let side = ThumbHash.decodedLongSide
            let width = ratio >= 1 ? side : max(1, Int((Double(side) * ratio).rounded()))
            let height = ratio >= 1 ? max(1, Int((Double(side) / ratio).rounded())) : side
            let hash = try await pipeline.placeholder(for: source, kind: kind)
            decoded = PlaceholderImage(
                width: width, height: height, rgba: try BlurHash.decode(hash, width: width, height: height))
        }
        let output = format ?? .png
        let request = route.imageRequest(for: plan, format: output, options: [])
        let image = try Image(
            width: decoded.width, height: decoded.height, pixels: decoded.rgba, sourceFormat: output
        ).transformed(by: request.transforms, keepsColorProfile: false)
        let data = try route.registry.encoder(for: output)
            .encode(image, options: request.encodingOptions ?? route.baseEncoding)
        return packed(data, format: output, plan: plan, varies: plan.format == nil || !route.enforcedFormats.isEmpty)
    }

    /// The source's bytes as fetched (imgproxy's `raw`): no decoding checks, no transforms.
    private func sourceBytes(_ plan: ProxyPlan) async throws -> ServedResult {
        let options: ImageRequest.Options = results == nil ? [.skipsProcessedDiskStore] : []
        let source = try await pipeline.image(for: route.sourceRequest(for: plan, options: options))
        try checkSourceFileSize(source.data.count, plan: plan)
        return packed(source.data, format: source.format, plan: plan, varies: false)
    }

    /// The URL's `max_src_file_size`, where the source's bytes are at hand (`raw`, `skip_processing`).
    private func checkSourceFileSize(_ count: Int, plan: ProxyPlan) throws {
        guard let most = plan.url.options.limits.maxSourceFileSize, most > 0, count > most else { return }
        throw ImgproxyURLError(
            status: 422, message: "the source is \(count) bytes, over the URL's max_src_file_size of \(most)")
    }

    func packed(
        _ data: Data, format: ImageFormat, plan: ProxyPlan, varies: Bool, contentType: String? = nil
    ) -> ServedResult {
        var served = ServedResult(
            body: ByteBuffer(bytes: data), entityTag: EntityTag.strong(for: data),
            contentType: contentType ?? format.mediaType, varies: varies,
            contentDisposition: contentType != nil
                ? nil
                : ContentDisposition.value(
                    filename: plan.url.options.filename, source: plan.source, format: format,
                    attachment: plan.url.options.returnAttachment),
            source: sourceHeaders?.entry(for: plan.source))
        served.answerHeaders = answerHeaders(for: served, cacheControl: nil)
        return served
    }

    /// The headers of `served`'s answers; `cacheControl` replaces the server's `Cache-Control` (and the
    /// source's, with passthrough). Made once when a result is packed, so a hit only picks one.
    private func answerHeaders(for served: ServedResult, cacheControl: String?) -> AnswerHeaders {
        var headers = HTTPFields()
        headers.reserveCapacity(7)
        if configuration.useEntityTags { headers[.eTag] = served.entityTag }
        if let cacheControl {
            headers[.cacheControl] = cacheControl
        } else if configuration.cacheControlPassthrough, let source = served.source,
            source.cacheControl != nil || source.expires != nil
        {
            // imgproxy's passthrough: the source's own Cache-Control and Expires, whichever it sent.
            if let value = source.cacheControl { headers[.cacheControl] = value }
            if let value = source.expires { headers[.expires] = value }
        } else {
            headers[.cacheControl] = resultCacheControl
        }
        if route.clientHints {
            headers[.vary] = served.varies ? "Accept, " + ClientHints.varyNames : ClientHints.varyNames
        } else if served.varies {
            headers[.vary] = "Accept"
        }
        if configuration.useLastModified, let lastModified = served.source?.lastModified {
            headers[.lastModified] = lastModified
        }
        let notModified = headers
        headers[.contentType] = served.contentType
        headers[.contentLength] = served.contentLength
        if let disposition = served.contentDisposition { headers[.contentDisposition] = disposition }
        return AnswerHeaders(ok: headers, notModified: notModified)
    }

    func answer(
        _ served: ServedResult, conditions: AnswerConditions, head: Bool, cacheControl: String? = nil
    ) -> ResultAnswer {
        // The headers made when the result was packed, unless this answer sets its own Cache-Control.
        let headers =
            (cacheControl == nil ? served.answerHeaders : nil) ?? answerHeaders(for: served, cacheControl: cacheControl)
        let lastModified = configuration.useLastModified ? served.source?.lastModified : nil
        // If-None-Match decides when it is sent and read; If-Modified-Since only without it (RFC 9110 §13.2.2).
        if configuration.useEntityTags, let condition = conditions.ifNoneMatch {
            if HTTPConditions.ifNoneMatch(condition, matches: served.entityTag) {
                return ResultAnswer(status: .notModified, headers: headers.notModified, body: nil, contentLength: nil)
            }
        } else if let lastModified, let since = conditions.ifModifiedSince,
            HTTPConditions.notModified(lastModified: lastModified, ifModifiedSince: since)
        {
            return ResultAnswer(status: .notModified, headers: headers.notModified, body: nil, contentLength: nil)
        }
        return ResultAnswer(
            status: .ok, headers: headers.ok, body: head ? nil : served.body, contentLength: served.contentLength)
    }

    // MARK: - Other answers

    func metricsResponse(head: Bool) -> Response {
        metrics.memory.refresh(results: results, images: pipeline.memoryCache)
        let bytes =
            metrics.exposition() + DecodeBudgetMetrics.exposition(pipeline.decodeBudget?.snapshot)
            + SharedTierMetrics.exposition(pipeline.sharedTierStatus)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentLength] = String(bytes.count)
        return Response(
            status: .ok, headers: headers,
            body: head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    func failure(_ failure: ProxyFailure, head: Bool) -> Response {
        failures.response(for: failure, head: head)
    }

    // MARK: - Access log

    /// The path with its first segment (the signature) replaced, so logs never hold a valid signed URL's
    /// signature.
    static func redacted(_ path: String) -> String {
        if path.hasPrefix("/info/") { return "/info" + redacted(String(path.dropFirst(5))) }
        let segments = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard segments.count == 2, segments[0].isEmpty else { return path }
        let rest = segments[1]
        guard let slash = rest.firstIndex(of: "/") else { return path }
        return "/-" + rest[slash...]
    }
}
