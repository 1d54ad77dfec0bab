import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TroveCore

/// Fetches http and https URLs with AsyncHTTPClient, streaming the body so the byte limit and progress
/// apply as bytes arrive.
public struct HTTPFetcher: Fetcher {
    public let name = "http"
    public let schemes: Set<String> = ["http", "https"]
    private let client: HTTPClient
    private let ownsClient: Bool

    /// Uses the process-wide shared client (redirects followed up to 5 times).
    public init() {
        self.client = sharedHTTPClient
        self.ownsClient = false
    }

    /// Uses a client of the caller's; `shutdown()` shuts it down when `owned` is true.
    public init(client: HTTPClient, owned: Bool) {
        self.client = client
        self.ownsClient = owned
    }

    /// A fresh client with Trove's defaults, shut down by this fetcher's `shutdown()`.
    public static func withOwnClient() -> HTTPFetcher {
        HTTPFetcher(client: HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                       configuration: defaultClientConfiguration),
                    owned: true)
    }

    public static var defaultClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: .init(connect: .seconds(10)),
            decompression: .disabled)
        configuration.httpVersion = .automatic
        return configuration
    }

    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    public func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome {
        let url = request.url.absoluteString
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = .GET
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        if let etag = request.validators?.etag { outgoing.headers.replaceOrAdd(name: "If-None-Match", value: etag) }
        if let date = request.validators?.lastModified {
            outgoing.headers.replaceOrAdd(name: "If-Modified-Since", value: date)
        }
        let timeout = TimeAmount.nanoseconds(Int64(request.timeout.components.seconds) * 1_000_000_000
            + request.timeout.components.attoseconds / 1_000_000_000)

        do {
            let response = try await client.execute(outgoing, timeout: timeout)
            let metadata = Self.metadata(of: response, url: request.url)
            if response.status == .notModified { return .notModified(metadata) }
            guard (200..<300).contains(response.status.code) else {
                throw TroveError.httpStatus(Int(response.status.code), url: url)
            }
            if let expected = metadata.expectedLength, expected > request.maxBytes {
                throw TroveError.tooLarge(url: url, limit: request.maxBytes)
            }
            var body = Data()
            if let expected = metadata.expectedLength { body.reserveCapacity(Int(expected)) }
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= request.maxBytes else {
                    throw TroveError.tooLarge(url: url, limit: request.maxBytes)
                }
                chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                progress(FetchProgress(received: Int64(body.count), expected: metadata.expectedLength))
            }
            if let expected = metadata.expectedLength, expected != Int64(body.count) {
                throw TroveError.lengthMismatch(url: url, expected: expected, received: Int64(body.count))
            }
            return .data(body, metadata)
        } catch let error as TroveError {
            throw error
        } catch is CancellationError {
            throw TroveError.cancelled
        } catch let error as HTTPClientError {
            throw Self.translate(error, url: url, timeout: request.timeout)
        } catch {
            throw TroveError.connectionFailed(url: url, reason: String(describing: error))
        }
    }

    private static func metadata(of response: HTTPClientResponse, url: URL) -> ResponseMetadata {
        let headers = response.headers
        return ResponseMetadata(
            url: url,
            statusCode: Int(response.status.code),
            contentType: headers.first(name: "content-type"),
            validators: Validators(etag: headers.first(name: "etag"),
                                   lastModified: headers.first(name: "last-modified")),
            cacheControl: headers.first(name: "cache-control"),
            expectedLength: headers.first(name: "content-length").flatMap { Int64($0) })
    }

    private static func translate(_ error: HTTPClientError, url: String, timeout: Duration) -> TroveError {
        switch error {
        case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
            return .timedOut(url: url, after: timeout)
        case .cancelled:
            return .cancelled
        case .remoteConnectionClosed:
            return .connectionFailed(url: url, reason: "the server closed the connection before the body ended")
        default:
            return .connectionFailed(url: url, reason: String(describing: error))
        }
    }
}
