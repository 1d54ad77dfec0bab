import AsyncHTTPClient
import Foundation
import NIOCore
import TroveCore

/// Fetches http and https URLs for callers who must not reach inside the network: the fetcher of a proxy
/// that takes its source URLs from strangers. It is `HTTPFetcher` (the same response checks, validators,
/// byte limit, timeouts and redirect handling) with two guards:
///
/// - the source URL must pass the `SourcePolicy` (schemes, allowed prefixes);
/// - every hop, the first and each redirect's, must go to an address the `AddressPolicy` permits. Its host
///   is read for IP literals in every spelling first (`SourceHost`); a name is resolved with the
///   `HostResolver`, and when any answer is refused the hop is refused, before any connection.
///
/// The connection then goes to exactly the address that was checked. AsyncHTTPClient would otherwise
/// resolve the name again when it connects, and a name that answers a public address to the check and
/// 10.0.0.5 to the connect (DNS rebinding) would slip through. So each hop goes out on a client whose
/// `dnsOverride` maps the host onto the checked address: the URL, the Host header, SNI and certificate
/// verification keep the name, for https as for http, and the client resolves nothing. Such clients are
/// kept per host and address (`PinnedClientPool`), so fetches from one origin reuse their connections.
package struct GuardedHTTPFetcher: StreamingFetcher {
    /// Registered as "http", in place of `HTTPFetcher`.
    package let name = "http"
    /// Serves http and https, in place of the plain `HTTPFetcher`.
    package let schemes: Set<String> = ["http", "https"]
    /// Which addresses the source and every redirect may connect to.
    package let addressPolicy: AddressPolicy
    /// Which source URLs are allowed at all (prefixes, schemes).
    package let sourcePolicy: SourcePolicy
    private let resolver: any HostResolver
    private let redirectLimit: Int
    private let clients: PinnedClientPool

    /// - Parameters:
    ///   - addressPolicy: which addresses any hop may connect to; public ones only by default.
    ///   - sourcePolicy: which source URLs may be fetched at all; every http(s) URL by default
    ///     (`SourcePolicy.anyHTTPSource`).
    ///   - resolver: turns host names into addresses; the system's getaddrinfo by default, a stub in tests.
    ///   - redirectLimit: redirects followed before `TroveError.tooManyRedirects`.
    package init(
        addressPolicy: AddressPolicy = AddressPolicy(), sourcePolicy: SourcePolicy = .anyHTTPSource,
        resolver: any HostResolver = SystemHostResolver(),
        redirectLimit: Int = HTTPFetcher.defaultRedirectLimit
    ) {
        self.init(
            addressPolicy: addressPolicy, sourcePolicy: sourcePolicy, resolver: resolver,
            redirectLimit: redirectLimit, clients: .shared)
    }

    /// As the other initialiser, with the clients kept in `clients` (a pool of a test's own).
    package init(
        addressPolicy: AddressPolicy, sourcePolicy: SourcePolicy, resolver: any HostResolver, redirectLimit: Int,
        clients: PinnedClientPool
    ) {
        self.addressPolicy = addressPolicy
        self.sourcePolicy = sourcePolicy
        self.resolver = resolver
        self.redirectLimit = redirectLimit
        self.clients = clients
    }

    /// Checks the URL and each hop's address before connecting to exactly that address; refusals throw `sourceNotAllowed`.
    package func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        try sourcePolicy.check(request.url)
        return try await exchange(request, progress: progress).run().outcome
    }

    /// As `fetch(_:progress:)`, with the body going to `sink` as it arrives, never collected.
    package func fetchStreaming(
        _ request: FetchRequest, into sink: any FetchBodySink,
        progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws -> StreamedFetchOutcome {
        try sourcePolicy.check(request.url)
        var exchange = exchange(request, progress: progress)
        exchange.sink = sink
        return try await exchange.run().streamed
    }

    private func exchange(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void)
        -> HTTPExchange
    {
        HTTPExchange(
            openHop: { hopURL in try await openHop(to: hopURL, of: request.url) },
            request: request, headers: HTTPFetcher.headers(of: request),
            // Strangers' URLs fetched for many clients: no cookie jar is shared with them.
            cookieStore: nil, redirectLimit: redirectLimit, progress: progress)
    }

    /// Checks where `hopURL` would connect and returns a client that can connect only there.
    private func openHop(to hopURL: URL, of source: URL) async throws -> HTTPHop {
        let isRedirect = hopURL != source
        func refuse(_ reason: String) -> TroveError {
            .sourceNotAllowed(
                url: source.absoluteString,
                reason: isRedirect ? "it redirects to \(hopURL.absoluteString), and \(reason)" : reason)
        }
        guard let scheme = hopURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw refuse("only http and https URLs are fetched here")
        }
        // The host exactly as AsyncHTTPClient will read it from the URL, so the override below applies.
        guard let urlHost = URL(string: hopURL.absoluteString)?.host, !urlHost.isEmpty else {
            throw TroveError.malformedURL(
                url: source.absoluteString, reason: "\(isRedirect ? "a redirect's URL" : "it") has no host")
        }
        let addresses = try await checkedAddresses(of: urlHost, source: source, refuse: refuse).map(\.unmapped)
        let bare = urlHost.hasPrefix("[") && urlHost.hasSuffix("]") ? String(urlHost.dropFirst().dropLast()) : urlHost
        return clients.hop(toHost: bare, anyOf: addresses)
    }

    /// The addresses `urlHost` stands for (at least one), once every one of them is permitted: any of them
    /// may be connected to.
    private func checkedAddresses(of urlHost: String, source: URL, refuse: (String) -> TroveError) async throws
        -> [IPAddress]
    {
        let host: SourceHost
        do {
            host = try SourceHost(urlHost: urlHost)
        } catch {
            throw refuse(error.reason)
        }
        switch host {
        case let .address(address):
            if let refusal = addressPolicy.refusal(of: address) {
                throw refuse(
                    address.description == urlHost ? refusal : "its host \(urlHost) means \(address); \(refusal)")
            }
            return [address]
        case .localhost:
            let loopback = IPAddress.v4(0x7F00_0001)
            if let refusal = addressPolicy.refusal(of: loopback) {
                throw refuse("its host \(urlHost) is this machine; \(refusal)")
            }
            return [loopback]
        case let .name(name):
            let addresses: [IPAddress]
            do {
                addresses = try await resolver.addresses(of: name)
            } catch is CancellationError {
                throw TroveError.cancelled
            } catch {
                throw TroveError.connectionFailed(
                    url: source.absoluteString,
                    reason: "could not resolve \(name) (\(error)); "
                        + "check the host name and the network")
            }
            // One refused answer refuses the name: a name pointing inside is not fetched even when it also
            // points outside.
            for address in addresses {
                if let refusal = addressPolicy.refusal(of: address) {
                    throw refuse("its host \(name) resolves to \(address); \(refusal)")
                }
            }
            guard !addresses.isEmpty else {
                throw TroveError.connectionFailed(url: source.absoluteString, reason: "\(name) has no addresses")
            }
            return addresses
        }
    }
}
