import Foundation
import Synchronization
import Testing
import TroveCore
import TroveFetcher

/// `s3://bucket/key` sources in a proxy's source policy: off unless switched on, and under the allowed
/// prefixes with the bucket as the host; the registry's s3 fetcher is held to the same rules.
@Suite struct S3SourcePolicyTests {
    /// Stands in for TroveS3's fetcher: answers every s3: URL with its own text, counting calls.
    final class StubS3Fetcher: Fetcher {
        let name = "s3"
        let schemes: Set<String> = ["s3"]
        let calls = Mutex(0)

        func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
            -> FetchOutcome
        {
            calls.withLock { $0 += 1 }
            return .data(Data(request.url.absoluteString.utf8), ResponseMetadata(url: request.url))
        }
    }

    private func refusal(_ policy: SourcePolicy, _ text: String) -> TroveError? {
        do {
            try policy.check(URL(string: text)!)
            return nil
        } catch {
            return error as? TroveError
        }
    }

    @Test func s3SourcesAreOffUntilSwitchedOnAndTheRefusalSaysHow() throws {
        let url = "s3://photos/a.png"
        let off = try SourcePolicy()
        #expect(refusal(off, url) == .sourceNotAllowed(url: url, reason: SourcePolicy.s3SourcesOff))
        #expect(SourcePolicy.s3SourcesOff.contains("IMGPROXY_USE_S3=true"))
        #expect(refusal(SourcePolicy.anyHTTPSource, url) != nil)
        #expect(refusal(try SourcePolicy(allowS3URLs: true), url) == nil)
    }

    @Test func aBucketPrefixAdmitsItsKeysAndNoOtherBucket() throws {
        let policy = try SourcePolicy(allowedPrefixes: ["s3://photos"], allowS3URLs: true)
        for url in ["s3://photos/a.png", "s3://PHOTOS/deep/a%20b.png", "s3://photos/x/../a.png"] {
            #expect(refusal(policy, url) == nil, "\(url)")
        }
        for url in [
            "s3://photos-private/a.png", "s3://photosx/a.png", "s3://other/photos/a.png", "https://photos/a.png"
        ] {
            #expect(refusal(policy, url) != nil, "\(url)")
        }
        let folder = try SourcePolicy(allowedPrefixes: ["s3://photos/public/"], allowS3URLs: true)
        #expect(refusal(folder, "s3://photos/public/a.png") == nil)
        #expect(
            refusal(folder, "s3://photos/private/a.png")
                == .sourceNotAllowed(
                    url: "s3://photos/private/a.png", reason: "it is under none of the 1 allowed source prefixes"))
        #expect(refusal(folder, "s3://photos/public/../private/a.png") != nil)
        // An http prefix admits no s3: source.
        let http = try SourcePolicy(allowedPrefixes: ["https://photos/"], allowS3URLs: true)
        #expect(refusal(http, "s3://photos/a.png") != nil)
    }

    @Test func theGuardedRegistryRefusesS3WhenOffAndHoldsItToThePrefixesWhenOn() async throws {
        let stub = StubS3Fetcher()
        var off = PluginRegistry()
        try off.register(fetcher: stub)
        try off.registerGuarded(GuardedHTTPFetcher(resolver: StubResolver([:])))
        let source = URL(string: "s3://photos/a.png")!
        await #expect(
            throws: TroveError.sourceNotAllowed(url: source.absoluteString, reason: SourcePolicy.s3SourcesOff)
        ) {
            try await off.fetcher(for: source).fetch(FetchRequest(url: source))
        }

        var on = PluginRegistry()
        try on.register(fetcher: stub)
        try on.registerGuarded(
            GuardedHTTPFetcher(
                sourcePolicy: try SourcePolicy(allowedPrefixes: ["s3://photos"], allowS3URLs: true),
                resolver: StubResolver([:])))
        guard case let .data(bytes, _) = try await on.fetcher(for: source).fetch(FetchRequest(url: source)) else {
            Issue.record("expected data")
            return
        }
        #expect(bytes == Data(source.absoluteString.utf8))
        let elsewhere = URL(string: "s3://secrets/a.png")!
        await #expect(throws: TroveError.self) {
            try await on.fetcher(for: elsewhere).fetch(FetchRequest(url: elsewhere))
        }
        // Only the admitted source reached the fetcher.
        #expect(stub.calls.withLock { $0 } == 1)

        // Switched on without an s3 fetcher registered, the scheme is simply not served.
        var bare = PluginRegistry()
        try bare.registerGuarded(
            GuardedHTTPFetcher(sourcePolicy: try SourcePolicy(allowS3URLs: true), resolver: StubResolver([:])))
        #expect(throws: TroveError.self) { try bare.fetcher(for: source) }
    }
}
