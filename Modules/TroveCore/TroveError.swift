import Foundation

/// Every failure Trove reports. Each message says what failed, for which URL, key or file, and what to do.
public enum TroveError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The origin answered with this status code (404, 500, ...), which is not a success.
    case httpStatus(Int, url: String)
    /// 429 or 5xx whose Retry-After header said how long to wait.
    case serverBusy(status: Int, url: String, retryAfter: Duration)
    /// The origin redirected more than `limit` times (a loop, usually).
    case tooManyRedirects(url: String, limit: Int)
    /// A URL that can never be fetched as written (bad data: payload, no host, ...).
    case malformedURL(url: String, reason: String)
    /// The origin sent nothing for `after` (the idle timeout).
    case timedOut(url: String, after: Duration)
    /// The whole request, retries included, did not finish within its deadline of `after`.
    case deadlineExceeded(url: String, after: Duration)
    /// The body is longer than `limit` bytes (the pipeline's `maxBytes`); stopped as soon as it passed it.
    case tooLarge(url: String, limit: Int)
    /// The connection ended after `received` bytes of the `expected` Content-Length: a truncated download.
    case lengthMismatch(url: String, expected: Int64, received: Int64)
    /// The connection could not be made or was lost (DNS, refused, reset); transient, so retried.
    case connectionFailed(url: String, reason: String)
    /// The https server's certificate did not pass verification (an unknown CA, an expired certificate, another
    /// host's name) at `host`, the first hop's or a redirect's; not retried. `reason` says which check failed,
    /// `certificateNameMismatch` when the certificate is for another host.
    case untrustedCertificate(url: String, host: String, reason: String)
    /// No registered fetcher serves this URL's scheme; `known` lists the schemes that are served.
    case unsupportedScheme(url: String, known: [String])
    /// A source the configuration does not allow: outside the allowed prefixes, a scheme that is off, or a
    /// host or redirect whose address is loopback, private, link-local, multicast or unspecified. Refused
    /// before any connection; `reason` names the rule.
    case sourceNotAllowed(url: String, reason: String)
    /// The bytes are no image format any decoder or Trove recognises; `firstBytes` shows how they begin.
    case unsupportedFormat(url: String, firstBytes: [UInt8])
    /// The bytes are a format Trove recognises (e.g. webp, bmp) but no registered decoder reads.
    case noDecoder(format: ImageFormat, url: String)
    /// A decoder for `format` found the data damaged or unsupported; `reason` says where.
    case decodingFailed(format: ImageFormat, reason: String)
    /// The encoder for `format` could not write the image; `reason` says why.
    case encodingFailed(format: ImageFormat, reason: String)
    /// The image's size from its header is over `DecodingLimits.maxPixels` (`limit`); refused before allocating.
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// An animation with more frames than a decoder allows. Trove's own decoders never throw it: they keep the
    /// first `DecodingLimits.maxFrames` frames (and refuse kept frames over `maxDecodedBytes` with
    /// `tooLargeToDecode`); a decoder from elsewhere still may.
    case tooManyFrames(frames: Int, limit: Int)
    /// Decoding this source would hold `needed` bytes, more than `limit`, the bound named by `setting`
    /// (`DecodingLimits.maxDecodedBytes`, or the pipeline's `decodeMemoryBudget`); refused before decoding.
    case tooLargeToDecode(needed: Int, limit: Int, setting: String)
    /// The decode memory budget was full and so was its queue of `waiting` requests: try again shortly.
    case decodeMemoryBusy(needed: Int, budget: Int, waiting: Int)
    /// The request waited `waited` for `needed` bytes of the decode memory budget and its deadline passed.
    case decodeMemoryWaitExpired(needed: Int, budget: Int, waited: Duration)
    /// The shared cache tier could not answer (down, slow, refusing writes); the pipeline goes on without it.
    case sharedTierUnavailable(reason: String)
    /// A disk entry's payload would not decompress with `compressor`; the entry is deleted and read as a miss.
    case decompressionFailed(compressor: String, reason: String)
    /// The caller cancelled its request (others sharing the same work carry on).
    case cancelled
    /// The URL failed for a lasting reason (`cause`, e.g. "HTTP 404") `ago`, and is remembered.
    case previouslyFailed(url: String, cause: String, ago: Duration)
    /// The source crashed a process (`cause`: the fatal signal) while it was being decoded, transformed or
    /// encoded, and is refused until `until` (`PipelineConfiguration.crashGuard`).
    case poisonedSource(url: String, cause: String, until: Date)
    /// The pipeline delegate's `shouldFetch` said no to this URL.
    case fetchDeclined(url: String)
    /// `cacheOnly` (or a cache lookup) found nothing for `key`.
    case notCached(key: String)
    /// The disk cache could not write under `path`: no space left on the device.
    case diskFull(path: String)
    /// A file operation on `path` failed for another reason (permissions, a missing directory, ...).
    case ioFailed(path: String, reason: String)
    /// A configuration names a plugin of `kind` that is not registered; `known` lists the names that are.
    case unknownPlugin(kind: PluginKind, name: String, known: [String])
    /// A plugin of `kind` is already registered under `name`; pass `replacing: true` to replace it.
    case duplicatePlugin(kind: PluginKind, name: String)
    /// A transform spec string does not parse; `position` is the offset of the bad part.
    case invalidTransformSpec(spec: String, position: Int, reason: String)
    /// A transform's parameter has a value it cannot take (a negative size, an unknown mode, ...).
    case invalidTransformParameter(transform: String, parameter: String, reason: String)
    /// A setting cannot work as given (an out-of-range level, a wrong password for a shared tier, ...).
    case invalidConfiguration(String)

    /// The `untrustedCertificate` reason when the certificate passed its issuer's check but names other hosts.
    package static let certificateNameMismatch = "the certificate is for another host name"

    /// One line for a person: what failed, for which URL, key or file, and what to do.
    public var description: String {
        switch self {
        case let .httpStatus(status, url):
            "HTTP \(status) for \(url)"
                + (status == 404 || status == 410
                    ? " (the resource does not exist; check the URL)"
                    : status >= 500 || status == 429 ? " (the server failed or is busy; try again later)" : "")
        case let .serverBusy(status, url, retryAfter):
            "HTTP \(status) for \(url): the server is busy and asked to retry after \(retryAfter); try again later"
        case let .tooManyRedirects(url, limit):
            "\(url) redirected more than \(limit) times or in a loop; check the URL or the server's redirects"
        case let .malformedURL(url, reason):
            "\(url) cannot be fetched: \(reason); fix the URL"
        case let .timedOut(url, after):
            "timed out fetching \(url): the origin sent nothing for \(after); raise the timeout or check the server"
        case let .deadlineExceeded(url, after):
            "\(url) did not finish within its deadline of \(after), retries included; raise the deadline or check the server"
        case let .tooLarge(url, limit):
            "\(url) is larger than the limit of \(limit) bytes; raise maxBytes if it is expected"
        case let .lengthMismatch(url, expected, received):
            "\(url) sent \(received) bytes but announced \(expected) (connection cut or wrong Content-Length)"
        case let .connectionFailed(url, reason):
            "could not fetch \(url): \(reason)"
        case let .untrustedCertificate(url, host, reason):
            "could not fetch \(url): the TLS certificate of \(host) was not accepted (\(reason)); "
                + (reason == Self.certificateNameMismatch
                    ? "check the URL's host name"
                    : "if you trust its issuer, give the CA's certificate in tls.caBundle (trove: --ca-bundle FILE; "
                        + "it replaces the system's trust store)")
                + ", or, for a development server only, skip the check with tls.insecureHosts "
                + "(trove: --insecure-host \(host))"
        case let .sourceNotAllowed(url, reason):
            "\(url) is not an allowed source: \(reason)"
        case let .unsupportedScheme(url, known):
            "no fetcher handles the scheme of \(url); registered schemes: \(known.joined(separator: ", "))"
        case let .unsupportedFormat(url, firstBytes) where firstBytes.isEmpty:
            "\(url) is empty: there is no image to decode; check the source"
        case let .unsupportedFormat(url, firstBytes):
            "\(url) is not an image Trove can decode (first bytes: \(firstBytes.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")))"
                + "; register a decoder for its format"
        case let .noDecoder(format, url):
            "\(url) is a \(format) image, but no \(format) decoder is registered; install a plugin that decodes \(format)"
        case let .decodingFailed(format, reason):
            "could not decode \(format): \(reason)"
        case let .encodingFailed(format, reason):
            "could not encode \(format): \(reason)"
        case let .imageTooLarge(width, height, limit):
            "image of \(width)x\(height) pixels exceeds the limit of \(limit) pixels; raise DecodingLimits.maxPixels if it is trusted"
        case let .tooManyFrames(frames, limit):
            "animation of \(frames) frames exceeds the limit of \(limit) frames; raise DecodingLimits.maxFrames if it is trusted"
        case let .tooLargeToDecode(needed, limit, setting):
            "decoding needs \(needed) bytes, over the limit of \(limit) bytes (\(setting)); raise it if the source is trusted"
        case let .decodeMemoryBusy(needed, budget, waiting):
            "the decode memory budget of \(budget) bytes is in use and \(waiting) requests already wait for it; "
                + "this one needs \(needed) bytes; try again shortly or raise decodeMemoryBudget"
        case let .decodeMemoryWaitExpired(needed, budget, waited):
            "waited \(waited) for \(needed) bytes of the decode memory budget of \(budget) bytes and the deadline "
                + "passed; try again shortly or raise decodeMemoryBudget"
        case let .sharedTierUnavailable(reason):
            "the shared cache tier is unavailable: \(reason); continuing with the local caches and the origin"
        case let .decompressionFailed(compressor, reason):
            "\(compressor) could not decompress a cache entry: \(reason)"
        case .cancelled:
            "the request was cancelled"
        case let .previouslyFailed(url, cause, ago):
            "\(url) failed \(Self.spoken(ago)) ago with \(cause); pass retryFailed (trove get, fetch or prefetch: "
                + "--retry-failed) to try again, or forget the URL (trove cache forget)"
        case let .poisonedSource(url, cause, until):
            "\(url) crashed a server (\(cause)) while it was being decoded; refused until "
                + "\(until.formatted(.iso8601)); forget the URL (trove cache forget) to try it again"
        case let .fetchDeclined(url):
            "the pipeline's delegate declined to fetch \(url)"
        case let .notCached(key):
            "not cached: \(key)"
        case let .diskFull(path):
            "no space left on the device writing \(path); free space or lower the cache's byte limit"
        case let .ioFailed(path, reason):
            "file operation failed on \(path): \(reason)"
        case let .unknownPlugin(kind, name, known):
            "unknown \(kind) '\(name)'; known: \(known.isEmpty ? "(none registered)" : known.joined(separator: ", "))"
        case let .duplicatePlugin(kind, name):
            "a \(kind) named '\(name)' is already registered; pass replacing: true to replace it"
        case let .invalidTransformSpec(spec, position, reason):
            "invalid transform spec '\(spec)' at position \(position): \(reason)"
        case let .invalidTransformParameter(transform, parameter, reason):
            "\(transform): parameter '\(parameter)' \(reason)"
        case let .invalidConfiguration(reason):
            "invalid configuration: \(reason)"
        }
    }

    /// The same line as `description`, for Foundation's error reporting.
    public var errorDescription: String? { description }

    /// A short cause for messages about an earlier failure: "HTTP 404", else the whole description.
    package var cause: String {
        if case let .httpStatus(status, _) = self { return "HTTP \(status)" }
        return description
    }

    /// "12 s", "2 min", "3 h": how long ago, as a person says it.
    static func spoken(_ duration: Duration) -> String {
        let seconds = max(0, duration.components.seconds)
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        return "\(seconds / 3600) h"
    }

    /// Whether this failure will happen again if retried soon (404, 410, undecodable data, a malformed URL): such URLs are
    /// remembered and fail fast. Timeouts, lost connections, 5xx and 429 are transient.
    package var isLasting: Bool {
        switch self {
        case let .httpStatus(status, _): status == 404 || status == 410
        case .unsupportedFormat, .noDecoder, .decodingFailed, .imageTooLarge, .tooManyFrames, .tooLargeToDecode,
            .malformedURL:
            true
        default: false
        }
    }
}
