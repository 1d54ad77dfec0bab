import Foundation

/// What identifies a request's results: the source (the normalised URL, or the request's custom key), the
/// transform steps, and the output encoding. Requests that would give the same bytes share a key; requests
/// that would not, never do.
///
/// Two storage strings are derived from it once: `raw` names the fetched bytes, `processed` the result.
/// They never collide, with each other or across requests: `raw` is the source as it is (so caches written
/// before keep their entries), and `processed` is a NUL byte followed by every part length-prefixed, which
/// no source can spell (a custom key that itself begins with NUL gets a second one in `raw`).
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The normalised URL, or the request's custom key.
    package let source: String
    /// The transform identifiers, in the order they run.
    package let transforms: [String]
    /// The requested output format, if any.
    package let encoding: ImageFormat?
    /// The request's own encoder settings, if any.
    package let encodingOptions: EncodingOptions?
    /// True when a processed result is encoded in the source's format (no `encoding` given).
    package let encodesInSourceFormat: Bool
    /// Settings of the pipeline, not of the request, that shape a processed result (its default encoder
    /// settings, a non-default shrink-on-load gap), so two pipelines configured differently never share one.
    package let pipelineSettings: String?
    /// The storage key of the fetched bytes.
    public let raw: String
    /// The storage key of the processed result: `raw` when there is nothing to process.
    public let processed: String

    /// The key for a source, transforms and encoding; `pipelineSettings` counts only when there is something
    /// to process.
    package init(
        source: String, transforms: [String] = [], encoding: ImageFormat? = nil,
        encodingOptions: EncodingOptions? = nil, encodesInSourceFormat: Bool = false,
        pipelineSettings: String? = nil
    ) {
        self.source = source
        self.transforms = transforms
        self.encoding = encoding
        self.encodingOptions = encodingOptions
        raw = source.utf8.first == 0 ? "\u{0}" + source : source
        guard !transforms.isEmpty || encoding != nil || encodingOptions != nil else {
            // Nothing to process: the source's own bytes are already in the source's format.
            self.encodesInSourceFormat = false
            self.pipelineSettings = nil
            processed = raw
            return
        }
        self.pipelineSettings = pipelineSettings
        self.encodesInSourceFormat = encoding == nil && encodesInSourceFormat
        var encoded = "\u{0}"
        func part(_ tag: Character, _ text: String) { Self.append(tag, text, to: &encoded) }
        part("s", source)
        for transform in transforms { part("t", transform) }
        if let encoding { part("e", encoding.rawValue) }
        if self.encodesInSourceFormat { part("k", "source") }
        if let encodingOptions { part("o", encodingOptions.identifier) }
        if let pipelineSettings { part("p", pipelineSettings) }
        processed = encoded
    }

    /// The storage key of a request other than a plain GET: NUL, then the method, the body's digest and the
    /// source, each length-prefixed. No raw key (a leading NUL is doubled there) and no processed key (whose
    /// first part is the source, `s`) can spell it, so a POST never shares an entry with a GET or with a
    /// POST of another body.
    package static func request(method: String, bodyDigest: String, source: String) -> String {
        var encoded = "\u{0}"
        append("m", method, to: &encoded)
        append("b", bodyDigest, to: &encoded)
        append("s", source, to: &encoded)
        return encoded
    }

    /// The storage key of one variant of a response that varies (`Vary`): NUL, then the primary key (the
    /// raw or request key every variant shares), then each selecting field's name and value (or a mark
    /// that the request had none), all length-prefixed, so two different sets of values never spell one key.
    package static func variant(of primary: String, selecting fields: [SelectingField]) -> String {
        var encoded = "\u{0}"
        append("v", primary, to: &encoded)
        for field in fields {
            append("n", field.name, to: &encoded)
            if let value = field.value { append("h", value, to: &encoded) } else { append("a", "", to: &encoded) }
        }
        return encoded
    }

    /// The shared tier's key for the placeholders of the response stored under `primary` (a raw key or a
    /// variant's): NUL, then `q` and the primary key, length-prefixed. A small value of its own, so a process
    /// asking for a placeholder reads none of the image's bytes from the tier.
    package static func placeholders(of primary: String) -> String {
        var encoded = "\u{0}"
        append("q", primary, to: &encoded)
        return encoded
    }

    /// The source a storage key belongs to: a raw key's source, or the source part of a processed or request
    /// key (`request(method:bodyDigest:source:)`) or of a variant's primary key; nil for a string no key
    /// spells. Forgetting a URL removes every entry whose key gives its source.
    package static func source(ofStorageKey key: String) -> String? {
        let bytes = Array(key.utf8)
        guard bytes.first == 0 else { return key }
        // A raw key of a source that itself begins with NUL carries a second one.
        if bytes.count > 1, bytes[1] == 0 { return String(decoding: bytes[1...], as: UTF8.self) }
        var index = 1
        while index < bytes.count {
            let tag = bytes[index]
            index += 1
            guard let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")),
                let length = Int(String(decoding: bytes[index..<colon], as: UTF8.self)), length >= 0,
                length <= bytes.count - colon - 1
            else { return nil }
            let text = bytes[(colon + 1)..<(colon + 1 + length)]
            if tag == UInt8(ascii: "s") { return String(decoding: text, as: UTF8.self) }
            // A variant's (or placeholders') first part is its primary key, whose source is theirs.
            if tag == UInt8(ascii: "v") || tag == UInt8(ascii: "q") {
                return source(ofStorageKey: String(decoding: text, as: UTF8.self))
            }
            index = colon + 1 + length
        }
        return nil
    }

    /// One length-prefixed part: the tag, the UTF-8 length, a colon, the text.
    private static func append(_ tag: Character, _ text: String, to encoded: inout String) {
        encoded.append(tag)
        encoded += String(text.utf8.count)
        encoded.append(":")
        encoded += text
    }

    /// The key of an image request, with the settings of the pipeline that runs it (see `pipelineSettings`).
    package init(_ request: ImageRequest, pipelineSettings: String? = nil) {
        self.init(request, rule: CacheKeyRule(), pipelineSettings: pipelineSettings)
    }

    /// The source, then each transform and the encoding, for people (not for storage).
    public var description: String {
        var parts = [source] + transforms
        if let encoding { parts.append("encode=\(encoding)") }
        if encodesInSourceFormat { parts.append("encode=source") }
        if let encodingOptions { parts.append(encodingOptions.identifier) }
        if let pipelineSettings { parts.append("pipeline=\(pipelineSettings)") }
        return parts.joined(separator: " | ")
    }

    /// Lowercases scheme and host, drops a default port and the fragment; keeps path and query as sent.
    package static func normalized(_ url: URL) -> String {
        let text = url.absoluteString
        // Most URLs are already in this form; proving it by a scan costs far less than taking them apart.
        return isAlreadyNormalized(text) ? text : normalizedByComponents(url)
    }

    /// The general case: takes the URL apart with URLComponents and puts it back together.
    static func normalizedByComponents(_ url: URL) -> String {
        // A URL relative to a base is keyed by where it points, so "a.png" on two hosts are two keys.
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        parts.scheme = parts.scheme?.lowercased()
        parts.host = parts.host?.lowercased()
        if (parts.scheme == "http" && parts.port == 80) || (parts.scheme == "https" && parts.port == 443) {
            parts.port = nil
        }
        parts.fragment = nil
        if parts.path.isEmpty && parts.host != nil { parts.path = "/" }
        return parts.string ?? url.absoluteString
    }

    /// True for `scheme://authority/rest` where the scheme is lowercase, the authority is plain lowercase
    /// ASCII (no user info, no percent escapes, no default port), a path follows, and there is no fragment:
    /// `normalizedByComponents` would return such a string unchanged. Anything else says false.
    static func isAlreadyNormalized(_ text: String) -> Bool {
        var utf8 = text.utf8[...]
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")), colon != utf8.startIndex else { return false }
        let scheme = utf8[..<colon]
        guard
            scheme.allSatisfy({
                isLowercaseLetterOrDigit($0) || $0 == UInt8(ascii: "+")
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            })
        else { return false }
        utf8 = utf8[colon...]
        guard utf8.starts(with: "://".utf8) else { return false }
        utf8 = utf8.dropFirst(3)
        guard
            let slash = utf8.firstIndex(where: {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?")
                    || $0 == UInt8(ascii: "#")
            }),
            utf8[slash] == UInt8(ascii: "/")
        else { return false }
        let authority = utf8[..<slash]
        guard !authority.isEmpty,
            authority.allSatisfy({
                isLowercaseLetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]")
            })
        else { return false }
        let defaultPort = scheme.elementsEqual("http".utf8) ? ":80" : scheme.elementsEqual("https".utf8) ? ":443" : nil
        if let defaultPort, authority.reversed().starts(with: defaultPort.utf8.reversed()) { return false }
        // An empty port (`host:`) is dropped by URLComponents, and ":080" is port 80.
        if authority.last == UInt8(ascii: ":")
            || zip(authority, authority.dropFirst()).contains(where: {
                $0 == UInt8(ascii: ":") && $1 == UInt8(ascii: "0")
            })
        {
            return false
        }
        return !utf8[slash...].contains(UInt8(ascii: "#"))
    }

    private static func isLowercaseLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
