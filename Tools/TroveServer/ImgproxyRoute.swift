import Foundation
import Trove

/// Reads imgproxy URLs through TroveImgproxy: the signature, the options and presets, the source.
struct ImgproxyRoute: Sendable {
    init(configuration: ServerConfiguration, registry: PluginRegistry) throws {}

    /// The plan for a request path; throws an error that `ProxyFailure` turns into 400, 403 or 404.
    func plan(forPath path: String) throws -> ProxyPlan {
        throw ProxyFailure.notFound
    }

    /// AVIF, then WebP, when the client accepts them and an encoder is registered; nil keeps the source's format.
    func preferredFormat(accept: String?, available: [ImageFormat]) -> ImageFormat? {
        nil
    }

    /// Sets the request's output format and encoding options from the plan.
    func configure(_ request: inout ImageRequest, plan: ProxyPlan, format: ImageFormat?) {
        request.outputFormat = format
        if format == nil { request.options.insert(.encodesInSourceFormat) }
        if let quality = plan.quality { request.encodingOptions = EncodingOptions(quality: Double(quality) / 100) }
    }
}

extension ProxyFailure {
    /// Errors of the URL reader and the source policy, with the status each carries.
    static func classifiedElsewhere(_ error: any Error) -> ProxyFailure? {
        nil
    }
}

extension ImgproxyRoute {
    /// Pipeline settings the URL rules need (none yet).
    func configure(_ configuration: inout PipelineConfiguration) throws {}
}
