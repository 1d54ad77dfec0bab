import Foundation
import Testing
import TroveCore
import TroveFetcher

/// Allowed prefixes on a boundary of the normalised URL, and the file: and data: switches.
@Suite struct SourcePolicyTests {
    private func admitted(_ policy: SourcePolicy, _ url: String) -> Bool {
        guard let url = URL(string: url) else { return false }
        do {
            try policy.check(url)
            return true
        } catch {
            return false
        }
    }

    @Test func prefixWithTrailingSlash() throws {
        let policy = try SourcePolicy(allowedPrefixes: ["https://example.com/"])
        for url in [
            "https://example.com/a.jpg", "https://EXAMPLE.com/a.jpg", "HTTPS://example.com:443/a.jpg",
            "https://example.com./a.jpg", "https://example.com", "https://user@example.com/a.jpg",
            "https://example.com/img/a%20b.jpg"
        ] {
            #expect(admitted(policy, url), "\(url)")
        }
        for url in [
            "https://example.com.evil/", "https://example.com.evil/a.jpg", "http://example.com/a.jpg",
            "https://example.com:8443/a.jpg", "https://evil.com/https://example.com/",
            "https://example.com@evil.com/a.jpg", "https://example.comevil/"
        ] {
            #expect(!admitted(policy, url), "\(url)")
        }
    }

    @Test func prefixWithoutTrailingSlashMatchesOnABoundary() throws {
        let policy = try SourcePolicy(allowedPrefixes: ["https://example.com"])
        for url in [
            "https://example.com/a.jpg", "https://example.com", "https://example.com/", "https://example.com?x=1"
        ] {
            #expect(admitted(policy, url), "\(url)")
        }
        for url in [
            "https://example.com.evil", "https://example.com.evil/", "https://example.com@evil",
            "https://example.com@evil/a.jpg", "https://example.com:80@evil/", "https://example.computer/",
            "https://example.com:444/"
        ] {
            #expect(!admitted(policy, url), "\(url)")
        }
        let path = try SourcePolicy(allowedPrefixes: ["https://example.com/img"])
        #expect(admitted(path, "https://example.com/img/a.jpg") && admitted(path, "https://example.com/img"))
        #expect(!admitted(path, "https://example.com/img2/a.jpg") && !admitted(path, "https://example.com/images"))
    }

    @Test func dotSegmentsCannotClimbOutOfAPrefix() throws {
        let policy = try SourcePolicy(allowedPrefixes: ["https://example.com/img/"])
        #expect(admitted(policy, "https://example.com/img/./a.jpg"))
        #expect(admitted(policy, "https://example.com/img/x/../a.jpg"))
        for url in [
            "https://example.com/img/../secret.jpg", "https://example.com/img/%2e%2e/secret.jpg",
            "https://example.com/img/..%2Fsecret.jpg", "https://example.com/secret.jpg"
        ] {
            #expect(!admitted(policy, url), "\(url)")
        }
    }

    @Test func ipLiteralsCompareInTheirCanonicalSpelling() throws {
        let policy = try SourcePolicy(allowedPrefixes: ["http://127.0.0.1:8080/"])
        #expect(admitted(policy, "http://2130706433:8080/a.jpg"))
        #expect(!admitted(policy, "http://127.0.0.1:8081/a.jpg"))
    }

    @Test func refusalNamesTheRule() throws {
        let policy = try SourcePolicy(allowedPrefixes: ["https://example.com/"])
        let url = "https://example.com.evil/a.jpg"
        #expect(
            throws: TroveError.sourceNotAllowed(url: url, reason: "it is under none of the 1 allowed source prefixes")
        ) {
            try policy.check(URL(string: url)!)
        }
        #expect(
            (TroveError.sourceNotAllowed(url: url, reason: "it is under none of the 1 allowed source prefixes"))
                .description
                == "https://example.com.evil/a.jpg is not an allowed source: it is under none of the 1 allowed source prefixes"
        )
    }

    @Test func fileAndDataAreOffUnlessEnabled() throws {
        let closed = SourcePolicy.anyHTTPSource
        #expect(
            throws: TroveError.sourceNotAllowed(
                url: "file:///etc/passwd", reason: "file: sources are off (allowFileURLs)")
        ) {
            try closed.check(URL(string: "file:///etc/passwd")!)
        }
        #expect(
            throws: TroveError.sourceNotAllowed(
                url: "data:image/png;base64,AAAA", reason: "data: sources are off (allowDataURLs)")
        ) {
            try closed.check(URL(string: "data:image/png;base64,AAAA")!)
        }
        #expect(!admitted(closed, "ftp://example.com/a.jpg"))
        #expect(admitted(closed, "https://anything.example/a.jpg"))

        let files = try SourcePolicy(allowedPrefixes: ["file:///srv/images/"], allowFileURLs: true, allowDataURLs: true)
        #expect(admitted(files, "file:///srv/images/a.png"))
        #expect(admitted(files, "data:image/png;base64,AAAA"))
        #expect(!admitted(files, "file:///srv/images/../../etc/passwd"))
        #expect(!admitted(files, "file:///etc/passwd"))
        #expect(!admitted(files, "file://otherhost/srv/images/a.png"))
    }

    @Test func badPrefixesAreConfigurationErrors() {
        #expect(throws: TroveError.self) { try SourcePolicy(allowedPrefixes: ["example.com"]) }
        #expect(throws: TroveError.self) { try SourcePolicy(allowedPrefixes: ["https://exa mple.com/"]) }
    }
}
