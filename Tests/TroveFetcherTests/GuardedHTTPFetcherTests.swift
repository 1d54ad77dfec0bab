import FixtureServer
import Foundation
import Testing
import TroveCore
import TroveFetcher

/// GuardedHTTPFetcher: refused sources never connect, every hop is checked, and the connection goes to
/// the address that was checked. Names resolve through `StubResolver`; nothing leaves loopback.
@Suite struct GuardedHTTPFetcherTests {
    private static let body = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    private static let loopbackRefusal =
        "127.0.0.1 is a loopback address, and loopback sources are not allowed "
        + "(allowLoopback, --allow-loopback-sources)"
    private static let privateRefusal =
        "10.0.0.5 is a private address, and private sources are not allowed "
        + "(allowPrivate, --allow-private-sources)"

    private func fetcher(
        _ policy: AddressPolicy = AddressPolicy(), resolver: StubResolver,
        sources: SourcePolicy = .anyHTTPSource
    ) -> GuardedHTTPFetcher {
        GuardedHTTPFetcher(addressPolicy: policy, sourcePolicy: sources, resolver: resolver)
    }

    private func refusal(_ fetcher: GuardedHTTPFetcher, _ url: String) async -> TroveError? {
        let error = await caughtError {
            _ = try await fetcher.fetch(FetchRequest(url: URL(string: url)!, timeout: .seconds(2)))
        }
        return error as? TroveError
    }

    // MARK: Spellings

    /// Every spelling of this machine is refused, without asking the resolver and without a connection to
    /// the listener the URLs point at.
    @Test func loopbackSpellingsAreRefusedWithoutAConnection() async throws {
        let listener = try BacklogListener()
        let resolver = StubResolver([:])
        let guarded = fetcher(resolver: resolver)
        let port = listener.port
        let spellings = [
            "127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1", "127.1", "0x7f000001", "127.0.0.1.",
            "[::1]", "[::ffff:7f00:1]", "[::ffff:127.0.0.1]", "[::127.0.0.1]", "[2002:7f00:1::]",
            "localhost", "localhost.", "LOCALHOST", "images.localhost", "example.com@127.0.0.1",
            "example.com:80@127.0.0.1", "%31%32%37.0.0.1", "0.0.0.0", "0", "[::]"
        ]
        for host in spellings {
            let url = "http://\(host):\(port)/a.jpg"
            let error = await refusal(guarded, url)
            guard case let .sourceNotAllowed(refusedURL, reason)? = error else {
                Issue.record("\(url) was not refused: \(String(describing: error))")
                continue
            }
            #expect(refusedURL == url)
            #expect(
                reason.contains("loopback") || reason.contains("this machine") || reason.contains("unspecified"),
                "\(reason)")
        }
        #expect(resolver.asked == [])
        #expect(listener.connectionsOpened() == 0)
        let decimal = await refusal(guarded, "http://2130706433:\(port)/a.jpg")
        #expect(
            decimal?.description == "http://2130706433:\(port)/a.jpg is not an allowed source: its host 2130706433 "
                + "means 127.0.0.1; \(Self.loopbackRefusal)")
    }

    /// The listener does count: an allowed fetch to it opens one connection (and times out, as nothing answers).
    @Test func theListenerCountsConnections() async throws {
        let listener = try BacklogListener()
        let guarded = fetcher(AddressPolicy(allowLoopback: true), resolver: StubResolver([:]))
        let url = URL(string: "http://0x7f.1:\(listener.port)/a.jpg")!
        await #expect(throws: TroveError.timedOut(url: url.absoluteString, after: .milliseconds(200))) {
            _ = try await guarded.fetch(FetchRequest(url: url, timeout: .milliseconds(200)))
        }
        #expect(listener.connectionsOpened() == 1)
    }

    /// The loose spellings reach the address they were judged as: with loopback allowed, each fetches from
    /// the fixture server on 127.0.0.1.
    @Test func spellingsConnectToTheAddressTheyMean() async throws {
        try await withServer(["/blob": .file(Self.body, contentType: "application/octet-stream")]) { server in
            let guarded = fetcher(AddressPolicy(allowLoopback: true), resolver: StubResolver([:]))
            let port = server.port ?? 0
            for host in ["2130706433", "0177.0.0.1", "0x7f.1", "127.1", "[::ffff:7f00:1]", "localhost", "localhost."] {
                let data = try await fetchData(URL(string: "http://\(host):\(port)/blob")!, fetcher: guarded)
                #expect(data == Self.body, "\(host)")
            }
            #expect(server.requestCount(for: "/blob") == 7)
        }
    }

    // MARK: Resolved names

    @Test func privateAndLinkLocalAnswersAreRefused() async throws {
        let resolver = StubResolver([
            "internal.test": ["10.0.0.5"], "meta.test": ["169.254.169.254"], "cgnat.test": ["100.64.0.1"],
            "ula.test": ["fd00::1"], "mapped.test": ["::ffff:10.0.0.5"], "mixed.test": ["127.0.0.1", "10.0.0.5"]
        ])
        let guarded = fetcher(AddressPolicy(allowLoopback: true), resolver: resolver)
        let error = await refusal(guarded, "http://internal.test/a.jpg")
        #expect(
            error
                == .sourceNotAllowed(
                    url: "http://internal.test/a.jpg",
                    reason: "its host internal.test resolves to 10.0.0.5; \(Self.privateRefusal)"))
        for (name, kind) in [
            ("meta.test", "link-local"), ("cgnat.test", "private"), ("ula.test", "private"),
            ("mapped.test", "private"), ("mixed.test", "private")
        ] {
            let error = await refusal(guarded, "http://\(name)/latest/meta-data/")
            guard case let .sourceNotAllowed(_, reason)? = error else {
                Issue.record("\(name) was not refused: \(String(describing: error))")
                continue
            }
            #expect(
                reason.contains("its host \(name) resolves to") && reason.contains("is a \(kind) address"), "\(reason)")
        }
        // Allowing private addresses still keeps the metadata service out.
        let privateAllowed = fetcher(AddressPolicy(allowLoopback: true, allowPrivate: true), resolver: resolver)
        let metadata = await refusal(privateAllowed, "http://meta.test/latest/meta-data/")
        #expect(
            metadata
                == .sourceNotAllowed(
                    url: "http://meta.test/latest/meta-data/",
                    reason: "its host meta.test resolves to "
                        + "169.254.169.254; 169.254.169.254 is a link-local address, and link-local sources are not allowed (allowLinkLocal)"
                ))
    }

    @Test func privateLiteralsAreRefusedWithoutResolving() async throws {
        let resolver = StubResolver([:])
        let guarded = fetcher(AddressPolicy(allowLoopback: true), resolver: resolver)
        for url in [
            "http://10.0.0.5/", "http://169.254.169.254/latest/meta-data/", "http://0xa9fea9fe/",
            "http://[fe80::1]/", "http://[::ffff:169.254.169.254]/", "http://[fd00::1]/", "https://192.168.0.1/",
            "http://224.0.0.1/", "http://255.255.255.255/"
        ] {
            let error = await refusal(guarded, url)
            guard case .sourceNotAllowed? = error else {
                Issue.record("\(url) was not refused: \(String(describing: error))"); continue
            }
        }
        #expect(resolver.asked == [])
    }

    @Test func unresolvableNamesFailAsConnectionFailures() async throws {
        let guarded = fetcher(resolver: StubResolver([:]))
        let error = await refusal(guarded, "http://nowhere.test/a.jpg")
        guard case let .connectionFailed(url, reason)? = error else {
            Issue.record("\(String(describing: error))"); return
        }
        #expect(url == "http://nowhere.test/a.jpg" && reason.hasPrefix("could not resolve nowhere.test"))
    }

    // MARK: Redirects and rebinding

    /// An allowed loopback origin redirecting inside is refused at the redirect, before connecting to it.
    @Test func redirectsInsideAreRefused() async throws {
        try await withServer([:]) { server in
            let port = server.port ?? 0
            server.setRoute("/hop", .redirect(to: "http://internal.test:\(port)/secret"))
            server.setRoute("/meta", .redirect(to: "http://169.254.169.254/latest/meta-data/", status: 301))
            server.setRoute("/file", .redirect(to: "file:///etc/passwd"))
            let resolver = StubResolver(["origin.test": ["127.0.0.1"], "internal.test": ["10.0.0.5"]])
            let guarded = fetcher(AddressPolicy(allowLoopback: true), resolver: resolver)

            let hop = await refusal(guarded, "http://origin.test:\(port)/hop")
            #expect(
                hop
                    == .sourceNotAllowed(
                        url: "http://origin.test:\(port)/hop",
                        reason: "it redirects to "
                            + "http://internal.test:\(port)/secret, and its host internal.test resolves to 10.0.0.5; \(Self.privateRefusal)"
                    ))
            #expect(resolver.asked == ["origin.test", "internal.test"])

            let meta = await refusal(guarded, "http://origin.test:\(port)/meta")
            guard case let .sourceNotAllowed(_, reason)? = meta else {
                Issue.record("\(String(describing: meta))"); return
            }
            #expect(
                reason.hasPrefix(
                    "it redirects to http://169.254.169.254/latest/meta-data/, and 169.254.169.254 is a link-local"))

            let file = await refusal(guarded, "http://origin.test:\(port)/file")
            guard case .malformedURL? = file else { Issue.record("\(String(describing: file))"); return }
            #expect(server.requests == ["/hop", "/meta", "/file"])
        }
    }

    /// A name that answers loopback to the check and a private address afterwards (DNS rebinding): the
    /// connection goes to the checked address, the client resolves nothing itself (a `.test` name would
    /// not resolve), and a later hop to the same name is checked again.
    @Test func connectionsGoToTheCheckedAddress() async throws {
        try await withServer(["/blob": .file(Self.body, contentType: "application/octet-stream")]) { server in
            let port = server.port ?? 0
            server.setRoute("/again", .redirect(to: "http://rebind.test:\(port)/blob"))
            let policy = AddressPolicy(allowLoopback: true)
            let rebinding = StubResolver(turns: ["rebind.test": [["127.0.0.1"], ["10.0.0.5"]]])
            let data = try await fetchData(
                URL(string: "http://rebind.test:\(port)/blob")!,
                fetcher: fetcher(policy, resolver: rebinding))
            #expect(data == Self.body)
            #expect(rebinding.asked == ["rebind.test"])

            let again = StubResolver(turns: ["rebind.test": [["127.0.0.1"], ["10.0.0.5"]]])
            let error = await refusal(fetcher(policy, resolver: again), "http://rebind.test:\(port)/again")
            #expect(
                error
                    == .sourceNotAllowed(
                        url: "http://rebind.test:\(port)/again",
                        reason: "it redirects to "
                            + "http://rebind.test:\(port)/blob, and its host rebind.test resolves to 10.0.0.5; \(Self.privateRefusal)"
                    ))
            #expect(again.asked == ["rebind.test", "rebind.test"])
            #expect(server.requestCount(for: "/blob") == 1)

            // The pin holds for a name written in capitals too (the client looks the override up as written).
            let capitals = StubResolver(["rebind.test": ["127.0.0.1"]])
            let loud = try await fetchData(
                URL(string: "http://Rebind.TEST.:\(port)/blob")!,
                fetcher: fetcher(policy, resolver: capitals))
            #expect(loud == Self.body && capitals.asked == ["rebind.test"])
        }
    }

    // MARK: Allowed fetches

    /// With loopback allowed, a fetch works end to end as HTTPFetcher's does: body, validators, 304, the
    /// byte limit, redirects on the same origin.
    @Test func allowedLoopbackFetchWorksEndToEnd() async throws {
        try await withServer([
            "/blob": .file(Self.body, contentType: "application/octet-stream"),
            "/moved": .redirect(to: "/blob")
        ]) { server in
            let port = server.port ?? 0
            let guarded = fetcher(
                AddressPolicy(allowLoopback: true), resolver: StubResolver(["origin.test": ["127.0.0.1"]]))
            let url = URL(string: "http://origin.test:\(port)/blob")!
            guard case let .data(data, metadata) = try await guarded.fetch(FetchRequest(url: url)) else {
                Issue.record("expected data"); return
            }
            #expect(data == Self.body)
            #expect(metadata.contentType == "application/octet-stream")
            #expect(metadata.validators.etag == FixtureServer.etag(for: Self.body))
            guard
                case let .notModified(again) = try await guarded.fetch(
                    FetchRequest(url: url, validators: metadata.validators))
            else {
                Issue.record("expected 304"); return
            }
            #expect(again.statusCode == 304)
            await #expect(throws: TroveError.tooLarge(url: url.absoluteString, limit: 1_000)) {
                _ = try await guarded.fetch(FetchRequest(url: url, maxBytes: 1_000))
            }
            let moved = try await fetchData(URL(string: "http://origin.test:\(port)/moved")!, fetcher: guarded)
            #expect(moved == Self.body)
            // Without the switch the same origin is refused.
            let closed = fetcher(resolver: StubResolver(["origin.test": ["127.0.0.1"]]))
            let error = await refusal(closed, url.absoluteString)
            #expect(
                error
                    == .sourceNotAllowed(
                        url: url.absoluteString,
                        reason: "its host origin.test resolves to 127.0.0.1; \(Self.loopbackRefusal)"))
            #expect(server.requestCount(for: "/blob") == 4)
        }
    }

    /// Errors name the status, never the origin's body.
    @Test func errorsDoNotEchoTheBody() async throws {
        let secret = Data("internal stack trace at /srv/app/secret.py".utf8)
        try await withServer(["/fail": .response(status: 500, headers: ["Content-Type": "text/plain"], body: secret)]) {
            server in
            let guarded = fetcher(AddressPolicy(allowLoopback: true), resolver: StubResolver([:]))
            let url = server.url("/fail")
            let error = await refusal(guarded, url.absoluteString)
            #expect(error == .httpStatus(500, url: url.absoluteString))
            #expect(!(error?.description.contains("secret") ?? true))
        }
    }

    // MARK: Source policy and registry

    @Test func sourcesOutsideThePrefixesNeverResolve() async throws {
        let resolver = StubResolver(["example.com.evil": ["127.0.0.1"]])
        let guarded = fetcher(
            AddressPolicy(allowLoopback: true), resolver: resolver,
            sources: try SourcePolicy(allowedPrefixes: ["http://example.com"]))
        for url in ["http://example.com.evil/a.jpg", "http://example.com@example.com.evil/a.jpg"] {
            let error = await refusal(guarded, url)
            #expect(error == .sourceNotAllowed(url: url, reason: "it is under none of the 1 allowed source prefixes"))
        }
        #expect(resolver.asked == [])
    }

    @Test func registryServesHTTPGuardedAndRefusesFileAndData() async throws {
        var registry = PluginRegistry()
        try registry.register(fetcher: HTTPFetcher())
        try registry.register(fetcher: FileFetcher())
        try registry.register(fetcher: DataURLFetcher())
        try registry.registerGuarded(GuardedHTTPFetcher(resolver: StubResolver([:])))
        #expect(try registry.fetcher(for: URL(string: "https://example.com/")!) is GuardedHTTPFetcher)
        for url in ["file:///etc/passwd", "data:image/png;base64,AAAA"] {
            let fetcher = try registry.fetcher(for: URL(string: url)!)
            let error = await caughtError { _ = try await fetcher.fetch(FetchRequest(url: URL(string: url)!)) }
            guard case .sourceNotAllowed? = error as? TroveError else {
                Issue.record("\(url): \(String(describing: error))"); continue
            }
        }
        var open = PluginRegistry()
        try open.registerGuarded(
            GuardedHTTPFetcher(sourcePolicy: try SourcePolicy(allowDataURLs: true), resolver: StubResolver([:])))
        let data = try await open.fetcher(for: URL(string: "data:,hi")!).fetch(
            FetchRequest(url: URL(string: "data:,hi")!))
        guard case let .data(bytes, _) = data else { Issue.record("expected data"); return }
        #expect(bytes == Data("hi".utf8))
    }
}
