import Foundation
import Trove
import TroveImgproxy

/// Reads imgproxy URLs through TroveImgproxy: the signature, the presets and options, the source.
struct ImgproxyRoute: Sendable {
    let signature: ImgproxySignature
    let presets: ImgproxyPresets
    let availableFormats: Set<ImageFormat>
    /// The pipeline's encoder settings, which a URL's quality adjusts.
    let baseEncoding: EncodingOptions
    /// Largest result side; a URL asking for more is refused before anything is fetched.
    let maxResultDimension: Int
    /// Quality by output format when the URL names none.
    let formatQualities: [ImageFormat: Int]
    /// Whether URLs may carry imgproxy's security options.
    let allowSecurityOptions: Bool
    /// What every URL's options start from: the server's `auto_rotate` default.
    let defaultOptions: ImgproxyOptions
    /// The decoded `--watermark` image, if one was given, its alpha scaled by `--watermark-opacity`.
    let watermarkImage: Image?
    /// The registry the server was made with, for reading sources' headers (`/info`).
    let registry: PluginRegistry
    /// `--enforce-*` formats an encoder is registered for.
    let enforcedFormats: Set<ImageFormat>
    /// `--preferred-format`, in order; every one has an encoder.
    let preferredFormats: [ImageFormat]
    /// `--skip-processing-format`: added to every URL's `skip_processing`.
    let skipProcessingFormats: Set<ImageFormat>
    /// Whether client hints give URLs' default dpr and width.
    let clientHints: Bool

    /// Throws `ServerConfigurationError` for a key or salt that is not hex, unpaired keys and salts, or a
    /// preset that does not parse (naming it).
    init(configuration: ServerConfiguration, registry: PluginRegistry, baseEncoding: EncodingOptions) throws {
        do {
            signature = try ImgproxySignature(
                hexKeys: configuration.keys, hexSalts: configuration.salts, size: configuration.signatureSize)
            presets = try ImgproxyPresets(
                definitions: configuration.presets.keys.sorted().map {
                    "\($0)=\(configuration.presets[$0] ?? "")"
                }, onlyPresets: configuration.presetsOnly)
        } catch {
            throw ServerConfigurationError(error.message)
        }
        availableFormats = Set(registry.encodableFormats)
        self.baseEncoding = baseEncoding
        maxResultDimension = configuration.maxResultDimension
        formatQualities = configuration.formatQualities
        allowSecurityOptions = configuration.allowSecurityOptions
        var defaultOptions = ImgproxyOptions()
        defaultOptions.autoRotate = configuration.autoRotate
        defaultOptions.stripColorProfile = !configuration.keepsColorProfile
        defaultOptions.keepCopyright = !configuration.dropsCopyright
        self.defaultOptions = defaultOptions
        watermarkImage = try configuration.watermarkFile.map {
            Self.scaledAlpha(try Self.loadWatermark($0, registry: registry), by: configuration.watermarkOpacity)
        }
        self.registry = registry
        let encodable = availableFormats
        enforcedFormats = configuration.enforcedFormats.intersection(encodable)
        if let missing = configuration.preferredFormats.first(where: { !encodable.contains($0) }) {
            throw ServerConfigurationError(
                "preferred format '\(missing.rawValue)' has no encoder in this server; use one of "
                    + encodable.map(\.rawValue).sorted().joined(separator: ", "))
        }
        preferredFormats = configuration.preferredFormats
        skipProcessingFormats = configuration.skipProcessingFormats
        clientHints = configuration.clientHints
    }

    /// The watermark with its alpha times `opacity`: the same as multiplying every URL's opacity by it.
    private static func scaledAlpha(_ image: Image, by opacity: Double) -> Image {
        guard opacity < 1 else { return image }
        var image = image.convertedToRGBA8()
        for index in stride(from: 3, to: image.pixels.count, by: 4) {
            image.pixels[index] = UInt8((Double(image.pixels[index]) * opacity).rounded())
        }
        return image
    }

    /// Reads and decodes the watermark file once, at start-up.
    private static func loadWatermark(_ path: String, registry: PluginRegistry) throws -> Image {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServerConfigurationError("watermark file '\(path)' cannot be read; give a readable image file")
        }
        guard let decoder = registry.decoder(for: data) else {
            throw ServerConfigurationError("watermark file '\(path)' is not an image this server decodes")
        }
        do {
            return try decoder.decode(data, limits: .default)
        } catch {
            throw ServerConfigurationError("watermark file '\(path)' does not decode: \(error)")
        }
    }

    /// The plan for a request path, with the client's hints (when they are read) as its default dpr and
    /// width; throws `ImgproxyURLError` (400, 403 or 404 with a safe message).
    func plan(forPath path: String, hints: ClientHints? = nil) throws -> ProxyPlan {
        let url = try ImgproxyURL.parse(
            path: path, signature: signature, presets: presets,
            availableFormats: availableFormats, allowSecurityOptions: allowSecurityOptions,
            defaults: hints.map { $0.applied(to: defaultOptions, maxSide: maxResultDimension) } ?? defaultOptions)
        try checkRequestedSize(url.options)
        if url.options.watermark != nil, watermarkImage == nil {
            throw ImgproxyURLError(
                status: 400,
                message: "processing option 'watermark' needs a watermark image: start the server with --watermark FILE"
            )
        }
        let afterSignature = path.dropFirst().firstIndex(of: "/").map { String(path[$0...]) } ?? ""
        // Hints change the result as options do, so they are part of its key.
        let resultKey = hints.flatMap { $0.isEmpty ? nil : $0.key + afterSignature } ?? afterSignature
        return ProxyPlan(url: url, resultKey: resultKey, resultPath: resultPath(forPath: path))
    }

    /// The path a result is kept under in the result cache, the same text before and after the URL is read:
    /// with signing on, the path as sent, which only finds a result if it is the path a signature was verified
    /// on, in its one canonical spelling (any other spelling fails the check and is never kept); with signing
    /// off, the path with its signature segment, which then means nothing, as "-", so no spelling of it makes
    /// another key.
    func resultPath(forPath path: String) -> String {
        // Found in the bytes: a Character search is slower, and this runs for every hit.
        guard !signature.isRequired, let slash = path.utf8.dropFirst().firstIndex(of: UInt8(ascii: "/")) else {
            return path
        }
        return "/-" + path[slash...]
    }

    /// The client hints in the texts of `Sec-CH-DPR` (else `DPR`) and `Sec-CH-Width` (else `Width`), on the
    /// steps of `ClientHints`, when the server reads hints; nil when it does not.
    func clientHints(dprText: String?, widthText: String?) -> ClientHints? {
        guard clientHints else { return nil }
        return ClientHints(dprText: dprText, widthText: widthText, maxWidth: maxResultDimension)
    }

    /// The size a URL names, times its dpr, must fit the server's limit; what the source's size makes of
    /// it is checked again when the resize is planned.
    private func checkRequestedSize(_ options: ImgproxyOptions) throws {
        let side = Double(max(options.width, options.height)) * options.dpr
        guard side <= Double(maxResultDimension) else {
            throw ImgproxyURLError(
                status: 400,
                message: "the requested size is \(Int(side.rounded(.up))) pixels a side (dpr included), over this "
                    + "server's limit of \(maxResultDimension); ask for a smaller size")
        }
    }

    /// The pipeline request for the source's own bytes, untouched (`raw`, `skip_processing`).
    func sourceRequest(for plan: ProxyPlan, options: ImageRequest.Options) -> ImageRequest {
        ImageRequest(
            url: plan.source, options: options,
            customCacheKey: Self.sourceKeyPrefix + CacheKey.normalized(plan.source))
    }

    /// AVIF, then WebP, when the client accepts them and an encoder is registered; nil keeps the source's format.
    func preferredFormat(accept: String?) -> ImageFormat? {
        FormatNegotiation.preferredFormat(accept: accept, available: availableFormats)
    }

    /// The enforced format the client accepts, if any: it wins over a format the URL names.
    func enforcedFormat(accept: String?) -> ImageFormat? {
        enforcedFormats.isEmpty ? nil : FormatNegotiation.preferredFormat(accept: accept, available: enforcedFormats)
    }

    /// Formats an animation can be encoded in.
    private static let animatedFormats: Set<ImageFormat> = [.gif, .webp]

    /// The format a result made in its source's format is encoded in instead, by `--preferred-format`, or nil
    /// to keep it: the source's format when it is preferred, else the first preferred one that can hold the
    /// image's transparency and animation, else the first preferred one (imgproxy's rules).
    func preferredFormat(for response: ImageResponse) -> ImageFormat? {
        guard let first = preferredFormats.first else { return nil }
        let source = response.image.sourceFormat == .unknown ? response.format : response.image.sourceFormat
        if preferredFormats.contains(source), response.format == source { return nil }
        let animated = !response.image.frames.isEmpty
        let transparent = Self.hasTransparency(response.image)
        let fitting = preferredFormats.first { format in
            (!animated || Self.animatedFormats.contains(format))
                && (!transparent || !ImgproxyOptions.formatsWithoutAlpha.contains(format))
        }
        let target = fitting ?? first
        return target == response.format ? nil : target
    }

    /// Whether any pixel is less than opaque.
    private static func hasTransparency(_ image: Image) -> Bool {
        guard image.pixelFormat == .rgba8 else { return false }
        for row in 0..<image.height {
            let start = row * image.bytesPerRow
            for index in stride(from: start + 3, to: start + image.width * 4, by: 4) where image.pixels[index] < 255 {
                return true
            }
        }
        return false
    }

    /// Where the proxy's sources are cached: their URLs under a prefix of their own. Entries there were only
    /// ever fetched through the guarded fetcher, so a hit needs no address check; bytes an unguarded
    /// `trove get` cached on the same directory or shared tier, for a name that points at a private
    /// address, are a miss here and go through the address rules.
    static let sourceKeyPrefix = "trove-serve-source:"

    /// The pipeline request for a plan whose output format has been chosen (nil: the source's format).
    /// `quality`, when given, replaces the one the URL and the server's table pick (`max_bytes` searches it).
    func imageRequest(
        for plan: ProxyPlan, format: ImageFormat?, options: ImageRequest.Options, quality: Int? = nil
    ) -> ImageRequest {
        var request = ImageRequest(
            url: plan.source,
            transforms: plan.url.transforms(
                encodingAs: format, maxResultDimension: maxResultDimension, watermarkImage: watermarkImage),
            options: options, customCacheKey: Self.sourceKeyPrefix + CacheKey.normalized(plan.source),
            outputFormat: format,
            encodingOptions: plan.url.encodingOptions(
                base: baseEncoding, format: format, formatQualities: formatQualities))
        if let quality {
            var encoding = request.encodingOptions ?? baseEncoding
            encoding.quality = Double(quality) / 100
            request.encodingOptions = encoding
        }
        if format == nil { request.options.insert(.encodesInSourceFormat) }
        // imgproxy processes every image it answers unless `skip_processing` says not to: a URL with nothing to
        // change is still turned upright, converted to sRGB and stripped of its metadata. A request without
        // transforms, format or encoding would get the source's bytes back, so it gets the server's encoding.
        if request.transforms.isEmpty, request.outputFormat == nil, request.encodingOptions == nil {
            request.encodingOptions = baseEncoding
        }
        if plan.url.options.stripColorProfile == false { request.options.insert(.keepsColorProfile) }
        if plan.url.options.keepCopyright == false { request.options.insert(.dropsCopyright) }
        // `ar:0`: the stored pixels, with their orientation written into the result so it displays the same.
        if !plan.url.options.autoRotate { request.options.insert(.keepsStoredOrientation) }
        return request
    }
}

extension ProxyFailure {
    /// Errors of the URL reader, with the status each carries.
    static func classifiedElsewhere(_ error: any Error) -> ProxyFailure? {
        guard let error = error as? ImgproxyURLError else { return nil }
        return ProxyFailure(status: error.status, error.message)
    }
}
