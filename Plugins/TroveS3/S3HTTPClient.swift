import AsyncHTTPClient
import Foundation
import NIOCore

/// The one HTTP client every `S3Client` shares: connection pools are per client, so sharing one lets every
/// bucket in the process reuse connections. It lives as long as the process (like AsyncHTTPClient's own
/// `HTTPClient.shared`), so it is never shut down.
///
/// A failed connect fails the request at once instead of AsyncHTTPClient retrying it silently until its
/// connect timeout: `S3Client` owns retrying, with backoff inside the caller's deadline. S3 does not redirect
/// a request it can serve, so redirects are not followed (a 301 is reported with S3's own explanation).
let s3HTTPClient: HTTPClient = {
    var configuration = HTTPClient.Configuration(
        redirectConfiguration: .disallow,
        timeout: .init(connect: .seconds(5), read: .seconds(30)),
        decompression: .disabled)
    configuration.httpVersion = .http1Only
    configuration.connectionPool.retryConnectionEstablishment = false
    // No client span of AsyncHTTPClient's own: it would begin a trace of its own with the signed URL.
    configuration.tracing.tracer = nil
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

/// Words a transport failure for a person. NIO reports a refused connect inside types of NIOPosix, which
/// this module does not import, so part of it is read from the error's text.
enum TransportFailure {
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "connecting timed out"
            case .readTimeout: return "the server sent nothing for 30 s"
            case .remoteConnectionClosed: return "the server closed the connection before answering"
            default: break
            }
        }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
            return "connection refused (is a server listening there?)"
        }
        if let error = error as? ChannelError, error == .ioOnClosedChannel {
            return "the connection closed before the request could be sent"
        }
        let text = "\(error)"
        if text.localizedCaseInsensitiveContains("refused") {
            return "connection refused (is a server listening there?)"
        }
        if text.contains("connectTimeout") { return "connecting timed out" }
        return text
    }
}
