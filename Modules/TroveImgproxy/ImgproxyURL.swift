import Foundation
import Trove
import TroveCore

/// One request in imgproxy's URL language, checked and parsed:
///
///     /{signature}/{options}/plain/{percent-encoded source}@{extension}
///     /{signature}/{options}/{base64url source, may be split by /}.{extension}
///
/// Options are `name:arg:arg` segments (`rs:fill:300:200`, `q:80`, `pr:thumb`); in presets-only mode the
/// options segment is a `:`-separated list of preset names. The extension is optional.
package struct ImgproxyURL: Sendable {
    /// The image to fetch: percent-decoded (plain) or base64url-decoded. Not yet checked against any
    /// allow-list or address rule; that is the fetcher's job.
    package let source: URL
    /// Every option, after the default preset, the URL's options and presets, and the extension.
    package let options: ImgproxyOptions

    /// The format asked for explicitly (`f:`/`format:`/`ext:` or the extension); nil means negotiate by
    /// `Accept` (see `FormatNegotiation`), else keep the source's format.
    package var format: ImageFormat? { options.format }
    /// 1...100, or nil for the encoder's default.
    package var quality: Int? { options.quality }
    /// The transformers for the explicit `format` (nil: the source's). Use `transforms(encodingAs:)` once a
    /// format has been negotiated, so alpha is flattened for JPEG.
    package var transforms: [any ImageTransformer] { options.transforms(encodingAs: options.format) }

    /// The transformers for an image encoded as `outputFormat` (nil: in the source's format); a resize past
    /// `maxResultDimension` pixels a side throws instead of allocating.
    package func transforms(
        encodingAs outputFormat: ImageFormat?, maxResultDimension: Int = .max, watermarkImage: Image? = nil
    ) -> [any ImageTransformer] {
        options.transforms(
            encodingAs: outputFormat, maxResultDimension: maxResultDimension, watermarkImage: watermarkImage)
    }

    /// Checks the signature, then parses.
    ///
    /// - Parameters:
    ///   - path: the request's path as received, still percent-encoded, without the query string;
    ///     it starts with `/` and the signature segment.
    ///   - signature: the keys the first segment must sign the rest of the path with.
    ///   - presets: configured presets (the `default` one applies first) and whether URLs name presets only.
    ///   - availableFormats: formats the server can encode; an explicit format outside them is a 400.
    ///     Nil accepts every format imgproxy names.
    ///   - allowSecurityOptions: whether `max_src_resolution` and the other security options may be set.
    ///   - defaults: the options a URL starts from (a server's `auto_rotate` default, say), before presets.
    ///   - now: the moment `expires` is checked against.
    /// - Throws: 403 for a wrong or missing signature; 400 naming the option, argument or preset at fault,
    ///   or for a source that cannot be decoded; 404 for an expired URL.
    package static func parse(
        path: String, signature: ImgproxySignature, presets: ImgproxyPresets = .none,
        availableFormats: Set<ImageFormat>? = nil, allowSecurityOptions: Bool = false,
        defaults: ImgproxyOptions = ImgproxyOptions(), now: Date = Date()
    ) throws(ImgproxyURLError) -> ImgproxyURL {
        guard path.hasPrefix("/") else { throw .forbidden }
        let afterSlash = path.dropFirst()
        let signatureEnd = afterSlash.firstIndex(of: "/") ?? afterSlash.endIndex
        let signatureSegment = afterSlash[..<signatureEnd]
        let signedPath = afterSlash[signatureEnd...]
        if signature.isRequired {
            guard !signatureSegment.isEmpty, signature.verify(signature: signatureSegment, path: signedPath) else {
                throw .forbidden
            }
        }
        guard !signedPath.isEmpty else {
            throw .badRequest("the URL has no source: write /{signature}/{options}/plain/{source URL}")
        }
        let segments = signedPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false)

        var options = defaults
        var expanding = [String]()
        if presets.options(named: "default") != nil {
            try options.applyPreset(
                "default", presets: presets, expanding: &expanding,
                availableFormats: availableFormats)
        }
        var sourceStart = 0
        if presets.onlyPresets {
            guard segments.count > 1 else {
                throw .badRequest("the URL has no source: write /{signature}/{presets}/plain/{source URL}")
            }
            for name in segments[0].split(separator: ":") {
                try options.applyPreset(
                    String(name), presets: presets, expanding: &expanding,
                    availableFormats: availableFormats)
            }
            sourceStart = 1
        } else {
            // Options hold a ':'; the first segment without one starts the source.
            while sourceStart < segments.count, segments[sourceStart].contains(":") {
                let option = RawOption(
                    segment: segments[sourceStart].percentDecoded
                        ?? String(segments[sourceStart]))
                try options.apply(option, presets: presets, expanding: &expanding, availableFormats: availableFormats)
                sourceStart += 1
            }
        }

        let (source, fileExtension) = try parseSource(segments[sourceStart...])
        if let fileExtension, !fileExtension.isEmpty {
            options.format = try ImgproxyOptions.format(
                fileExtension, option: "extension",
                availableFormats: availableFormats)
        }
        if let name = options.securityOptionNamed, !allowSecurityOptions {
            throw .badRequest(
                "processing option '\(name)' is a security option, which this server accepts only when started "
                    + "with --allow-security-options")
        }
        if let expires = options.expires, expires < now {
            throw ImgproxyURLError(status: 404, message: "the URL has expired")
        }
        return ImgproxyURL(source: source, options: options)
    }

    /// The source URL and the extension from the segments after the options.
    private static func parseSource(
        _ segments: ArraySlice<Substring>
    ) throws(ImgproxyURLError) -> (URL, String?) {
        guard let first = segments.first, !first.isEmpty else {
            throw .badRequest("the URL has no source: write /{signature}/{options}/plain/{source URL}")
        }
        let text: String
        var fileExtension: String?
        if first == "plain" {
            var encoded = segments.dropFirst().joined(separator: "/")
            // '@' in the source itself is written %40, so the last '@' starts the extension.
            if let at = encoded.lastIndex(of: "@") {
                fileExtension = String(encoded[encoded.index(after: at)...])
                encoded = String(encoded[..<at])
            }
            guard let decoded = encoded.percentDecoded, !decoded.isEmpty else {
                throw .badRequest("the plain source is not valid percent-encoding: escape '%' as %25")
            }
            text = repairingCollapsedSlashes(decoded)
        } else if first == "enc" {
            throw .badRequest("encrypted sources ('enc') are not supported by this server: use plain or base64url")
        } else {
            var encoded = segments.joined()
            if let dot = encoded.lastIndex(of: ".") {
                fileExtension = String(encoded[encoded.index(after: dot)...])
                encoded = String(encoded[..<dot])
            }
            guard let bytes = Base64URL.decode(encoded), let decoded = String(bytes: bytes, encoding: .utf8) else {
                throw .badRequest(
                    "the source is not URL-safe base64: encode it with - and _ (padding optional), or use /plain/")
            }
            text = decoded
        }
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            throw .badRequest("the source is not an absolute URL: give one with a scheme, e.g. https://")
        }
        return (url, fileExtension)
    }

    /// Proxies and routers may merge `//` into `/`: `https:/example.com/a` becomes `https://example.com/a` (and
    /// `s3:/bucket/key` `s3://bucket/key`).
    private static func repairingCollapsedSlashes(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":") else { return text }
        let scheme = text[..<colon]
        let rest = text[text.index(after: colon)...]
        guard ["http", "https", "s3"].contains(scheme), rest.hasPrefix("/"), !rest.hasPrefix("//") else { return text }
        return "\(scheme):/\(rest)"
    }
}
