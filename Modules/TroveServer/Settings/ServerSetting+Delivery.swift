import Foundation
import Trove

extension ServerSetting {
    /// How results are chosen and sent: enforced and preferred formats, formats answered unprocessed, the
    /// validators and caching headers, the watermark's base opacity and client hints. imgproxy's variables
    /// of the same meaning are read too.
    static let delivery: [ServerSetting] =
        [enforce(.avif, name: "AVIF"), enforce(.webp, name: "WebP"), enforce(.jxl, name: "JPEG XL")] + [
            ServerSetting(
                flag: "preferred-format", key: "preferredFormats",
                environment: [Variable("TROVE_PREFERRED_FORMATS"), Variable("IMGPROXY_PREFERRED_FORMATS")],
                form: .list,
                help: "A format a result whose URL and Accept name none may be in; a source in another format is "
                    + "encoded in the first listed that can hold it (alpha, animation); repeatable. None: the "
                    + "source's format.",
                write: { configuration, values, name in
                    configuration.preferredFormats = try values.filter { !$0.isEmpty }.map { try format($0, name) }
                },
                read: {
                    $0.preferredFormats.isEmpty
                        ? "source's" : $0.preferredFormats.map(\.rawValue).joined(separator: ",")
                }),
            ServerSetting(
                flag: "skip-processing-format", key: "skipProcessingFormats",
                environment: [
                    Variable("TROVE_SKIP_PROCESSING_FORMATS"), Variable("IMGPROXY_SKIP_PROCESSING_FORMATS")
                ], form: .list,
                help: "A source format answered as it is when the result would be in the same format (skp for "
                    + "every URL); repeatable.",
                write: { configuration, values, name in
                    configuration.skipProcessingFormats = Set(
                        try values.filter { !$0.isEmpty }.map { try format($0, name) })
                },
                read: {
                    $0.skipProcessingFormats.isEmpty
                        ? "none" : $0.skipProcessingFormats.map(\.rawValue).sorted().joined(separator: ",")
                }),
            ServerSetting(
                flag: "no-etag", key: "entityTags",
                environment: [
                    Variable("TROVE_NO_ETAG"), Variable("IMGPROXY_USE_ETAG", convert: inverted("IMGPROXY_USE_ETAG"))
                ],
                form: .off, help: "Send no ETag and ignore If-None-Match.", write: flag(\.useEntityTags),
                read: { $0.useEntityTags ? "ETags sent" : "no ETags" }),
            ServerSetting(
                flag: "keep-color-profile", key: "keepColorProfile",
                environment: [
                    Variable("TROVE_KEEP_COLOR_PROFILE"),
                    Variable("IMGPROXY_STRIP_COLOR_PROFILE", convert: inverted("IMGPROXY_STRIP_COLOR_PROFILE"))
                ], form: .on,
                help: "Keep a source's ICC profile, embedded in the result, instead of converting to sRGB (a URL's "
                    + "strip_color_profile overrides).",
                write: flag(\.keepsColorProfile), read: { $0.keepsColorProfile ? "kept" : "converted to sRGB" }),
            ServerSetting(
                flag: "drop-copyright", key: "dropCopyright",
                environment: [
                    Variable("TROVE_DROP_COPYRIGHT"),
                    Variable("IMGPROXY_KEEP_COPYRIGHT", convert: inverted("IMGPROXY_KEEP_COPYRIGHT"))
                ], form: .on,
                help: "Leave a source's copyright notice (EXIF, XMP and IPTC rights fields) out of results, which "
                    + "keep it by default (a URL's keep_copyright overrides).",
                write: flag(\.dropsCopyright), read: { $0.dropsCopyright ? "dropped" : "kept" }),
            ServerSetting(
                flag: "use-last-modified", key: "useLastModified",
                environment: [Variable("TROVE_USE_LAST_MODIFIED"), Variable("IMGPROXY_USE_LAST_MODIFIED")],
                form: .on,
                help: "Send the source's Last-Modified with results and answer If-Modified-Since with 304.",
                write: flag(\.useLastModified), read: { "\($0.useLastModified)" }),
            ServerSetting(
                flag: "cache-control-passthrough", key: "cacheControlPassthrough",
                environment: [
                    Variable("TROVE_CACHE_CONTROL_PASSTHROUGH"), Variable("IMGPROXY_CACHE_CONTROL_PASSTHROUGH")
                ], form: .on,
                help: "Send the source's Cache-Control and Expires with results in place of --result-max-age.",
                write: flag(\.cacheControlPassthrough), read: { "\($0.cacheControlPassthrough)" }),
            ServerSetting(
                flag: "watermark-opacity", key: "watermarkOpacity",
                environment: [Variable("TROVE_WATERMARK_OPACITY"), Variable("IMGPROXY_WATERMARK_OPACITY")],
                help: "The watermark's base opacity, 0-1, which a URL's watermark opacity multiplies.",
                write: { configuration, values, name in
                    let text = values.last ?? ""
                    guard let opacity = Double(text.trimmingCharacters(in: .whitespaces)), (0...1).contains(opacity)
                    else {
                        throw ServerConfigurationError("\(given(name, text)) is not an opacity from 0 to 1")
                    }
                    configuration.watermarkOpacity = opacity
                }, read: { "\($0.watermarkOpacity.formatted())" }),
            ServerSetting(
                flag: "enable-client-hints", key: "clientHints",
                environment: [Variable("TROVE_ENABLE_CLIENT_HINTS"), Variable("IMGPROXY_ENABLE_CLIENT_HINTS")],
                form: .on,
                help: "Read Sec-CH-DPR/DPR and Sec-CH-Width/Width as a URL's default dpr and width (answers then "
                    + "Vary on them).",
                write: flag(\.clientHints), read: { "\($0.clientHints)" })
        ]

    /// `--enforce-avif` and its kind: the format whenever the client's `Accept` lists it, over a URL's own.
    private static func enforce(_ format: ImageFormat, name: String) -> ServerSetting {
        let upper = format.rawValue.uppercased()
        return ServerSetting(
            flag: "enforce-\(format.rawValue)", key: "enforce\(upper.prefix(1))\(format.rawValue.dropFirst())",
            environment: [Variable("TROVE_ENFORCE_\(upper)"), Variable("IMGPROXY_ENFORCE_\(upper)")], form: .on,
            help: "Answer \(name) to clients whose Accept lists it, even when the URL names another format.",
            write: { configuration, values, variable in
                if try truth(values.last ?? "", variable) {
                    configuration.enforcedFormats.insert(format)
                } else {
                    configuration.enforcedFormats.remove(format)
                }
            }, read: { "\($0.enforcedFormats.contains(format))" })
    }

    /// imgproxy's format names (`jpg` and `jpeg`, `tif` and `tiff`) as Trove's.
    static func format(_ text: String, _ name: String) throws -> ImageFormat {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        let known: [String: ImageFormat] = [
            "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "gif": .gif, "webp": .webp, "avif": .avif, "jxl": .jxl,
            "heic": .heic, "bmp": .bmp, "tif": "tiff", "tiff": "tiff", "svg": "svg", "ico": "ico"
        ]
        guard let format = known[lowered] else {
            throw ServerConfigurationError(
                "\(given(name, text)) is not an image format; use jpeg, png, gif, webp, avif, jxl, heic, bmp, tiff, svg or ico"
            )
        }
        return format
    }

    /// An imgproxy switch that means the opposite of Trove's flag (`IMGPROXY_USE_ETAG=true` turns on what
    /// `--no-etag` turns off), read as the flag's value.
    private static func inverted(_ variable: String) -> @Sendable (String) throws -> String? {
        { text in String(!(try truth(text, variable))) }
    }
}
