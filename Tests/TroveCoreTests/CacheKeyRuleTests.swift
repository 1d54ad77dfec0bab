import Foundation
import Testing
import TroveCore

/// The pipeline-wide cache-key rule: which query parameters it drops, how it sorts the rest, and that the
/// default leaves every key as it was.
@Suite struct CacheKeyRuleTests {
    let signed = URL(string: "HTTPS://CDN.Example.com:443/a/cat.jpg?w=200&Signature=abc&Expires=99&h=100#top")!

    @Test func theDefaultRuleKeepsTheNormalisedURL() {
        let rule = CacheKeyRule()
        #expect(rule.isIdentity)
        #expect(rule.source(for: signed) == CacheKey.normalized(signed))
        #expect(rule.source(for: signed) == "https://cdn.example.com/a/cat.jpg?w=200&Signature=abc&Expires=99&h=100")
    }

    @Test func namedParametersAreDroppedAndTheRestKeepTheirOrder() {
        let rule = CacheKeyRule(droppedQueryParameters: ["Signature", "Expires"])
        #expect(rule.source(for: signed) == "https://cdn.example.com/a/cat.jpg?w=200&h=100")
        // Names are compared exactly: `signature` is another parameter.
        let lower = URL(string: "https://cdn.example.com/cat.jpg?signature=abc")!
        #expect(rule.source(for: lower) == "https://cdn.example.com/cat.jpg?signature=abc")
        // Nothing left: no dangling `?`.
        let only = URL(string: "https://cdn.example.com/cat.jpg?Signature=abc&Expires=1")!
        #expect(rule.source(for: only) == "https://cdn.example.com/cat.jpg")
    }

    @Test func aTrailingStarDropsAPrefixAndPercentEncodedNamesAreDecodedFirst() {
        let rule = CacheKeyRule(droppedQueryParameters: ["X-Amz-*", "sig nature"])
        let aws = URL(
            string: "https://bucket.s3.amazonaws.com/k.png?X-Amz-Date=1&v=2&X-Amz-Signature=f&X-Amzing=3&sig%20nature=x"
        )!
        #expect(rule.source(for: aws) == "https://bucket.s3.amazonaws.com/k.png?v=2&X-Amzing=3")
    }

    @Test func sortingPutsNamesInOrderAndKeepsRepeatsInTheirs() {
        let rule = CacheKeyRule(sortsQueryParameters: true)
        let a = URL(string: "https://h/p?w=1&c=2&c=1&a=0")!
        let b = URL(string: "https://h/p?a=0&c=2&w=1&c=1")!
        #expect(rule.source(for: a) == "https://h/p?a=0&c=2&c=1&w=1")
        #expect(rule.source(for: a) == rule.source(for: b))
    }

    @Test func anImageKeyUsesTheRuleUnlessTheRequestHasItsOwnKey() {
        let rule = CacheKeyRule(droppedQueryParameters: ["sig"])
        let one = ImageRequest(url: URL(string: "https://h/p.png?sig=1")!)
        let two = ImageRequest(url: URL(string: "https://h/p.png?sig=2")!)
        #expect(CacheKey(one, rule: rule).raw == "https://h/p.png")
        #expect(CacheKey(one, rule: rule) == CacheKey(two, rule: rule))
        #expect(CacheKey(one, rule: CacheKeyRule()) != CacheKey(two, rule: CacheKeyRule()))
        let custom = ImageRequest(url: URL(string: "https://h/p.png?sig=1")!, customCacheKey: "mine?sig=1")
        #expect(CacheKey(custom, rule: rule).raw == "mine?sig=1")
    }
}
