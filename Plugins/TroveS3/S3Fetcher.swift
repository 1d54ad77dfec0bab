import Foundation
import Synchronization
import TroveCore

/// Reads `s3://bucket/key` sources: a signed GET of the object through `S3Client`, its body taken piece by piece
/// as it arrives, so the request's byte limit stops a large object early and progress and body observers
/// see it arrive. `TroveS3Plugin` registers one; an app may register its own with other settings.
///
/// Failures are the ones an http source gives: a missing key or bucket is `httpStatus(404)` (remembered as
/// a lasting failure), an object over `maxBytes` is `tooLarge`, an unreachable server `connectionFailed`
/// and a passed deadline `deadlineExceeded`. Refused credentials (403) are `invalidConfiguration` naming the
/// bucket and the variable to check, never the secret. The client does not retry by itself: the pipeline's
/// retry policy retries the transient failures, as it does for http.
///
/// The key is the URL's path, percent-decoded, without its leading `/`; a URL with a query, port or user is
/// refused (object versions are not read). Conditional requests are not made: a revalidation gets the whole
/// object back.
package struct S3Fetcher: Fetcher {
    /// "s3".
    package let name = "s3"
    /// ["s3"].
    package let schemes: Set<String> = ["s3"]
    /// The endpoint, region and addressing every source is read with.
    package let settings: S3SourceSettings
    private let environment: [String: String]

    /// How long a fetch may take when its request has no deadline.
    package static let defaultBudget: Duration = .seconds(60)

    /// A fetcher reading sources with `settings`, and credentials and the default region from `environment`
    /// (the process's by default), resolved at each fetch so a rotated credentials file is picked up.
    package init(
        settings: S3SourceSettings = S3SourceSettings(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.settings = settings
        self.environment = environment
    }

    /// The object's bytes, with its Content-Type, ETag, Last-Modified and length as the response's metadata.
    package func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        let source = try S3SourceLocation(url: request.url)
        let shown = request.url.absoluteString
        guard request.method == "GET" else {
            throw TroveError.malformedURL(url: shown, reason: "s3 sources are only read (GET), not \(request.method)")
        }
        let client: S3Client
        do {
            let credentials = try S3Credentials.resolve(environment: environment, homeDirectory: NSHomeDirectory())
            client = S3Client(
                configuration: try settings.configuration(
                    bucket: source.bucket, credentials: credentials, environment: environment))
        } catch let error as S3Error {
            throw Self.troveError(error, url: request.url, bucket: source.bucket)
        }
        let body = Mutex(Data())
        let observer = request.bodyObserver
        let info: S3ObjectInfo?
        do {
            info = try await client.get(
                source.key, maxBytes: request.maxBytes, deadline: request.deadline?.end ?? .now + Self.defaultBudget
            ) { chunk in
                let piece = Data(chunk.readableBytesView)
                let received = body.withLock {
                    $0.append(piece)
                    return $0.count
                }
                observer?(piece)
                progress(FetchProgress(received: Int64(received), expected: nil))
            }
        } catch let error as S3Error {
            throw Self.troveError(error, url: request.url, bucket: source.bucket)
        }
        guard let info else { throw TroveError.httpStatus(404, url: shown) }
        let data = body.withLock { $0 }
        progress(FetchProgress(received: Int64(data.count), expected: Int64(info.size)))
        return .data(
            data,
            ResponseMetadata(
                url: request.url, statusCode: 200, contentType: info.contentType,
                validators: Validators(etag: info.etag, lastModified: info.lastModified),
                expectedLength: Int64(info.size)))
    }

    /// What an S3 failure reading `url` is as a source's failure. 404 (a missing key or bucket) is the HTTP
    /// not-found; 403 and the refused-credential codes name the bucket; other 4xx answers (a wrong region, a
    /// bucket at another endpoint) are settings to fix; 5xx and lost connections are transient.
    static func troveError(_ error: S3Error, url: URL, bucket: String) -> TroveError {
        let shown = url.absoluteString
        switch error {
        case let .service(failure) where failure.status == 404 || failure.code == "NoSuchKey":
            return .httpStatus(404, url: shown)
        case let .service(failure) where failure.status == 403 || refusedCredentialCodes.contains(failure.code):
            return .invalidConfiguration(
                "S3 bucket \(bucket) refused the credentials reading \(shown): \(failure.description)")
        case let .service(failure) where failure.isRetryable:
            return .connectionFailed(url: shown, reason: failure.description)
        case let .service(failure):
            return .invalidConfiguration("S3 could not read \(shown): \(failure.description)")
        case .connectionFailed, .unexpectedResponse:
            return .connectionFailed(url: shown, reason: error.description)
        case let .deadlineExceeded(_, after):
            return .deadlineExceeded(url: shown, after: after)
        case let .tooLarge(_, limit):
            return .tooLarge(url: shown, limit: limit)
        case .missingCredentials, .invalidConfiguration:
            return .invalidConfiguration("cannot read \(shown): \(error.description)")
        }
    }

    /// S3's codes for credentials it refused, whatever the status.
    static let refusedCredentialCodes: Set<String> = [
        "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken", "TokenRefreshRequired"
    ]
}

/// What an `s3://bucket/key` source names.
struct S3SourceLocation: Equatable {
    var bucket: String
    /// The object's key: the path percent-decoded, without its leading `/`.
    var key: String

    init(url: URL) throws {
        let shown = url.absoluteString
        func malformed(_ reason: String) -> TroveError {
            .malformedURL(url: shown, reason: "\(reason); write s3://bucket/key")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.scheme?.lowercased() == "s3"
        else { throw malformed("it is not an s3:// URL") }
        guard let bucket = components.host, !bucket.isEmpty else { throw malformed("it names no bucket") }
        guard components.user == nil, components.password == nil else {
            throw malformed("it has credentials in it (give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
        }
        guard components.port == nil else { throw malformed("it has a port (give the server as the S3 endpoint)") }
        guard components.query == nil, components.fragment == nil else {
            throw malformed("it has a query or fragment (percent-encode '?' and '#' in a key as %3F and %23)")
        }
        let key = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !key.isEmpty else { throw malformed("it names no key") }
        self.bucket = bucket
        self.key = key
    }
}
