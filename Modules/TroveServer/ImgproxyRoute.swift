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
    /// The decoded `--watermark` image, if one was given.
    let watermarkImage: Image?

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
        self.defaultOptions = defaultOptions
        watermarkImage = try configuration.watermarkFile.map { try Self.loadWatermark($0, registry: registry) }
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

    /// The plan for a request path; throws `ImgproxyURLError` (400, 403 or 404 with a safe message).
    func plan(forPath path: String) throws -> ProxyPlan {
        let url = try ImgproxyURL.parse(
            path: path, signature: signature, presets: presets,
            availableFormats: availableFormats, allowSecurityOptions: allowSecurityOptions,
            defaults: defaultOptions)
        try checkRequestedSize(url.options)
        if url.options.watermark != nil, watermarkImage == nil {
            throw ImgproxyURLError(
                status: 400,
                message: "processing option 'watermark' needs a watermark image: start the server with --watermark FILE"
            )
        }
        let afterSignature = path.dropFirst().firstIndex(of: "/").map { String(path[$0...]) } ?? ""
        return ProxyPlan(url: url, resultKey: afterSignature)
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
