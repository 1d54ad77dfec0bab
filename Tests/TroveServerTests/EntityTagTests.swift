import Testing

@testable import TroveServer

@Suite struct EntityTagTests {
    @Test func strongTagIsStableAndQuoted() {
        let tag = EntityTag.strong(for: Array("hello".utf8))
        // SHA-256("hello") begins 2cf24dba5fb0a30e26e83b2ac5b9e29e.
        #expect(tag == "\"2cf24dba5fb0a30e26e83b2ac5b9e29e\"")
    }

    @Test func accessLogDropsTheSignature() {
        #expect(
            ProxyResponder.redacted("/Xy9_sig/rs:fit:300:300/plain/http://a/b.png")
                == "/-/rs:fit:300:300/plain/http://a/b.png")
        #expect(ProxyResponder.redacted("/health") == "/health")
    }
}
