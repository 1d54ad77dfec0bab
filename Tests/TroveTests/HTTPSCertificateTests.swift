import Foundation
import Testing
import Trove
import TroveFetcher
import TroveTestSupport

/// https against a real nginx on loopback whose certificate the test CA signed (Tests/Fixtures/tls), which no
/// system trusts: refused by default with an error that says what to do, fetched with the test CA as the CA
/// bundle, or with the host listed as insecure; by both HTTP fetchers and through a pipeline's configuration.
@Suite struct HTTPSCertificateTests {
    static let path = "/plain/badge.png"

    func withHTTPSOrigin(_ body: (NginxTestServer) async throws -> Void) async throws {
        try await withNginxServer(
            serving: Fixtures.images,
            locations: ["/plain/": [:], "/max-age-0/": ["Cache-Control": "max-age=0"]], certificate: .localhost
        ) { nginx in
            try await body(nginx)
        }
    }

    func request(_ url: URL, _ tls: TLSOptions) -> FetchRequest {
        var request = FetchRequest(url: url)
        request.tls = tls
        return request
    }

    /// Both HTTP fetchers; the guarded one may reach loopback here.
    var fetchers: [any Fetcher] {
        [HTTPFetcher(), GuardedHTTPFetcher(addressPolicy: AddressPolicy(allowLoopback: true))]
    }

    func body(of outcome: FetchOutcome) -> Data? {
        if case let .data(data, metadata) = outcome, metadata.statusCode == 200 { return data }
        return nil
    }

    @Test func aCertificateFromAnUnknownCAIsRefusedWithItsOwnErrorThatSaysWhatToDo() async throws {
        try await withHTTPSOrigin { nginx in
            let url = nginx.url(Self.path)
            // Listing other hosts as insecure changes nothing for this one.
            for tls in [TLSOptions(), TLSOptions(insecureHosts: ["127.0.0.2", "localhost"])] {
                for fetcher in fetchers {
                    let error = await #expect(throws: TroveError.self) {
                        try await fetcher.fetch(request(url, tls))
                    }
                    guard case let .untrustedCertificate(failedURL, host, reason)? = error else {
                        Issue.record("\(type(of: fetcher)), \(tls): \(String(describing: error))")
                        continue
                    }
                    #expect(failedURL == url.absoluteString && host == "127.0.0.1" && !reason.isEmpty)
                    let message = "\(error!)"
                    #expect(message.contains("the TLS certificate of 127.0.0.1 was not accepted"), "\(message)")
                    #expect(message.contains("--ca-bundle") && message.contains("--insecure-host 127.0.0.1"))
                    // Retrying cannot help, and a fixed configuration must not be met by a remembered failure.
                    #expect(!RetryPolicy.isTransient(error!) && !error!.isLasting)
                }
            }
            // The handshake failed, so no request reached nginx.
            #expect(await nginx.requests().isEmpty)
        }
    }

    @Test func theTestCAAsTheCABundleIsTrusted() async throws {
        try await withHTTPSOrigin { nginx in
            let original = try Data(contentsOf: Fixtures.image("badge.png"))
            let tls = TLSOptions(caBundle: NginxTestServer.Certificate.testCA.path)
            for fetcher in fetchers {
                let outcome = try await fetcher.fetch(request(nginx.url(Self.path), tls))
                #expect(body(of: outcome) == original, "\(type(of: fetcher))")
            }
            #expect(await nginx.requests(atLeast: 2).map(\.status) == [200, 200])
        }
    }

    /// Answers every name with 127.0.0.1, so a URL can name a host the certificate is not for.
    struct LoopbackResolver: HostResolver {
        func addresses(of host: String) async throws -> [IPAddress] { [.v4(0x7F00_0001)] }
    }

    /// The guarded fetcher connects to the address it checked, yet the certificate is checked against the
    /// URL's host name.
    @Test func aTrustedCertificateForAnotherHostNameIsRefusedUnlessThatHostIsInsecure() async throws {
        try await withNginxServer(
            serving: Fixtures.images, locations: ["/plain/": [:]], certificate: .localhostNameOnly
        ) { nginx in
            let fetcher = GuardedHTTPFetcher(
                addressPolicy: AddressPolicy(allowLoopback: true), resolver: LoopbackResolver())
            let original = try Data(contentsOf: Fixtures.image("badge.png"))
            let url = URL(string: "https://images.example:\(nginx.port)\(Self.path)")!
            let trusting = TLSOptions(caBundle: NginxTestServer.Certificate.testCA.path)
            let error = await #expect(throws: TroveError.self) { try await fetcher.fetch(request(url, trusting)) }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("check the URL's host name") && !message.contains("--ca-bundle"), "\(message)")
            #expect(
                error
                    == .untrustedCertificate(
                        url: url.absoluteString, host: "images.example",
                        reason: TroveError.certificateNameMismatch))
            // The name it was issued for passes on the same connection target.
            let named = URL(string: "https://localhost:\(nginx.port)\(Self.path)")!
            #expect(body(of: try await fetcher.fetch(request(named, trusting))) == original)
            var insecure = trusting
            insecure.insecureHosts = ["Images.Example"]
            #expect(body(of: try await fetcher.fetch(request(url, insecure))) == original)
            #expect(await nginx.requests(atLeast: 2).map(\.status) == [200, 200])
        }
    }

    @Test func anInsecureHostIsFetchedWithoutACheckWhateverItsCase() async throws {
        try await withHTTPSOrigin { nginx in
            let original = try Data(contentsOf: Fixtures.image("badge.png"))
            for fetcher in fetchers {
                for tls in [TLSOptions(insecureHosts: ["127.0.0.1"]), TLSOptions(insecureHosts: ["[127.0.0.1]"])] {
                    let outcome = try await fetcher.fetch(request(nginx.url(Self.path), tls))
                    #expect(body(of: outcome) == original, "\(type(of: fetcher)), \(tls)")
                }
                // The unchecked connections are pooled apart: the same fetcher, strict again, refuses.
                await #expect(throws: TroveError.self) {
                    try await fetcher.fetch(request(nginx.url(Self.path), TLSOptions()))
                }
            }
            #expect(await nginx.requests(atLeast: 4).count == 4)
        }
    }

    @Test func aPipelineFetchesWithItsConfigurationsTLSOptions() async throws {
        try await withHTTPSOrigin { nginx in
            let url = nginx.url(Self.path)
            let strict = try DataPipeline(configuration: .memoryOnly)
            let error = await #expect(throws: TroveError.self) { try await strict.data(for: url) }
            guard case .untrustedCertificate? = error else {
                Issue.record("\(String(describing: error))")
                return
            }

            var configuration = PipelineConfiguration.memoryOnly
            configuration.tls.caBundle = NginxTestServer.Certificate.testCA.path
            let trusting = try DataPipeline(configuration: configuration)
            let response = try await trusting.data(for: url)
            #expect(response.data == (try Data(contentsOf: Fixtures.image("badge.png"))))
            // The refused fetch reached nothing (a handshake is not logged); the trusted one made one request.
            #expect(await nginx.requests(atLeast: 1).map(\.status) == [200])
        }
    }

    @Test(arguments: [
        ("dev.local:8443", "has a port"), ("https://dev.local", "is a URL or a path"), ("", "is empty"),
        ("dev local", "has spaces in it"), ("[::1]:8443", "has a port"), ("*.dev.local", "has a wildcard")
    ])
    func anInsecureHostThatIsNotABareHostIsRefusedWhenThePipelineIsMade(host: String, problem: String) throws {
        var configuration = PipelineConfiguration.memoryOnly
        configuration.tls.insecureHosts = ["dev.local", host]
        #expect {
            try DataPipeline(configuration: configuration)
        } throws: { error in
            guard case let .invalidConfiguration(reason)? = error as? TroveError else { return false }
            return reason.hasPrefix("tls.insecureHosts entry '\(host)' \(problem)")
        }
        #expect(!TLSOptions(insecureHosts: ["Dev.Local."]).verifiesCertificate(of: "dev.local"))
        #expect(!TLSOptions(insecureHosts: ["dev.local"]).verifiesCertificate(of: "DEV.local."))
    }

    /// A certificate that stops passing (expired, say) is an origin failure like a refused connection: the
    /// stale copy, checked when it was fetched, stands in.
    @Test func aStaleCopyStandsInWhenTheCertificateStopsPassing() async throws {
        try await withHTTPSOrigin { nginx in
            try await withTemporaryDirectory { directory in
                let url = nginx.url("/max-age-0/badge.png")
                var trusting = PipelineConfiguration(cacheDirectory: directory)
                trusting.tls.caBundle = NginxTestServer.Certificate.testCA.path
                let first = try DataPipeline(configuration: trusting)
                let fetched = try await first.data(for: url)
                await first.flush()
                // Another process that no longer trusts the certificate: max-age=0 makes the copy stale at once.
                let strict = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
                let stale = try await strict.data(for: url)
                #expect(stale.isStale && stale.source == .disk && stale.data == fetched.data)
                #expect(await nginx.requests(atLeast: 1).map(\.status) == [200])
            }
        }
    }

    @Test func aMissingOrNonPEMCABundleIsRefusedWhenThePipelineIsMade() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("nowhere.pem").path
            let notPEM = Fixtures.image("badge.png").path
            for (bundle, problem) in [(missing, "does not exist"), (notPEM, "holds no PEM certificate")] {
                var configuration = PipelineConfiguration.memoryOnly
                configuration.tls.caBundle = bundle
                #expect {
                    try DataPipeline(configuration: configuration)
                } throws: { error in
                    guard case let .invalidConfiguration(reason)? = error as? TroveError else { return false }
                    return reason.hasPrefix("tls.caBundle \(bundle) \(problem)")
                        && reason.hasSuffix("give a PEM file of CA certificates")
                }
                #expect(throws: TroveError.self) { try ImagePipeline(configuration: configuration) }
            }
        }
    }
}
