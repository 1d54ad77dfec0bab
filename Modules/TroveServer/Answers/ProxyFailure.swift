import Foundation
import Trove
import TroveFetcher

/// An answer other than the image: a status and a short message for the client. Messages are written
/// here, never passed through from an error's description, so they cannot carry the origin's body, the
/// server's file paths or its addresses.
struct ProxyFailure: Error, Sendable, Equatable {
    let status: Int
    let message: String
    /// Seconds for `Retry-After`, for a refusal that will pass (429 always has one).
    let retryAfter: Int?

    init(status: Int, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter ?? (status == 429 ? 1 : nil)
    }

    /// Seconds a client is asked to wait after the decode memory budget's deadline passed: long enough for
    /// a few decodes to finish, so clients do not come back all at once into the same full budget.
    static let budgetRetryAfter = 5

    static let busy = ProxyFailure(status: 429, "too many requests in progress; try again shortly")
    static let notFound = ProxyFailure(status: 404, "not found")
    static let methodNotAllowed = ProxyFailure(status: 405, "only GET and HEAD are served")

    /// The failure a pipeline error means for the client.
    init(_ error: any Error) {
        switch error {
        case let failure as ProxyFailure:
            self = failure
        case is AdmissionGate.Full:
            self = .busy
        case let error as TroveError:
            self = Self(error)
        case is CancellationError:
            self.init(status: 503, "the request was cancelled")
        default:
            self = Self.classifiedElsewhere(error) ?? ProxyFailure(status: 500, "the image could not be processed")
        }
    }

    private init(_ error: TroveError) {
        switch error {
        case let .httpStatus(status, _):
            self =
                status == 404 || status == 410
                ? ProxyFailure(status: 404, "the source image was not found (HTTP \(status))")
                : ProxyFailure(status: 502, "the source answered HTTP \(status)")
        case let .serverBusy(status, _, _):
            self.init(status: 502, "the source answered HTTP \(status)")
        case let .previouslyFailed(_, cause, _):
            self = Self.remembered(cause)
        case let .poisonedSource(_, _, until):
            self.init(
                status: 422, "this source crashed a server; refused until \(until.formatted(.iso8601))")
        case .tooManyRedirects:
            self.init(status: 502, "the source redirected too many times")
        case .malformedURL, .unsupportedScheme:
            self.init(status: 404, "the source URL cannot be fetched")
        case let .sourceNotAllowed(_, reason) where reason == SourcePolicy.s3SourcesOff:
            self.init(status: 404, "s3:// sources are off on this server; set IMGPROXY_USE_S3=true to serve them")
        case .fetchDeclined, .sourceNotAllowed:
            // imgproxy's status for a refused source; the reason (which rule, which address) stays in the log.
            self.init(status: 404, "the source is not allowed")
        case .timedOut, .deadlineExceeded:
            self.init(status: 504, "the source did not answer in time")
        case let .tooLarge(_, limit):
            self.init(status: 413, "the source is larger than the limit of \(limit) bytes")
        case .lengthMismatch, .connectionFailed:
            self.init(status: 502, "the source could not be fetched")
        case .untrustedCertificate:
            self.init(status: 502, "the source's TLS certificate was not accepted")
        case .unsupportedFormat, .noDecoder:
            self.init(status: 422, "the source is not an image this server can decode")
        case let .decodingFailed(format, _):
            self.init(status: 422, "the source is a damaged \(format) image")
        case let .imageTooLarge(width, height, limit):
            self.init(status: 422, "the source image of \(width)x\(height) pixels is over the limit of \(limit) pixels")
        case let .tooManyFrames(frames, limit):
            self.init(status: 422, "the source animation of \(frames) frames is over the limit of \(limit) frames")
        case let .tooLargeToDecode(_, limit, _):
            self.init(status: 422, "the source is too large to decode within \(ByteCountText.text(limit))")
        case .decodeMemoryBusy:
            self.init(status: 429, "too many large images in progress; try again shortly")
        case .decodeMemoryWaitExpired:
            self.init(
                status: 503, "no memory to decode the source came free within the request deadline; try again later",
                retryAfter: Self.budgetRetryAfter)
        case .invalidTransformSpec, .invalidTransformParameter:
            self.init(status: 400, "invalid processing options")
        case let .encodingFailed(format, _):
            self.init(status: 500, "the result could not be encoded as \(format)")
        case .cancelled:
            self.init(status: 503, "the request was cancelled")
        default:
            self.init(status: 500, "the image could not be processed")
        }
    }

    /// A failure remembered from a recent try, answered as the first was, which the remembered cause names
    /// (`TroveError.cause` spells a status "HTTP 404"): a missing source stays a 404, another client error
    /// the source's answer let be remembered a 502, and bytes that were no decodable image a 422 that says
    /// why again (over which limit, damaged), not only that it failed.
    private static func remembered(_ cause: String) -> ProxyFailure {
        let status = cause.hasPrefix("HTTP ") ? Int(cause.dropFirst("HTTP ".count).prefix(3)) : nil
        let first =
            status.map { ProxyFailure(TroveError.httpStatus($0, url: "")) }
            ?? TroveError(rememberedCause: cause).map { ProxyFailure($0) }
            ?? ProxyFailure(status: 422, "the source is not an image this server can decode")
        return ProxyFailure(status: first.status, first.message + ", as a recent try found")
    }
}
