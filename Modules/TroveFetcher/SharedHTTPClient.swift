import AsyncHTTPClient
import NIOCore

/// The one HTTP client every `HTTPFetcher` shares unless given its own: connection pools are per client,
/// so sharing one lets every pipeline in the process reuse connections. It lives as long as the process
/// (like AsyncHTTPClient's own `HTTPClient.shared`), so it is never shut down.
let sharedHTTPClient = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: HTTPFetcher.defaultClientConfiguration
)
