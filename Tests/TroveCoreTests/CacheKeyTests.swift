import Foundation
import Testing
import TroveCore

private struct Named: ImageTransformer {
    let identifier: String
    func transform(_ image: Image) throws -> Image { image }
}

@Suite struct CacheKeyTests {
    @Test func normalisesSchemeHostDefaultPortAndFragment() {
        let a = CacheKey.normalized(URL(string: "HTTP://Example.COM:80/a/B.png?x=1#frag")!)
        #expect(a == "http://example.com/a/B.png?x=1")
        #expect(CacheKey.normalized(URL(string: "https://example.com:443")!) == "https://example.com/")
        // A non-default port and the query are part of the identity.
        #expect(CacheKey.normalized(URL(string: "http://example.com:8080/a?x=2")!) == "http://example.com:8080/a?x=2")
    }

    @Test func sameWorkSameKeyDifferentWorkDifferentKey() {
        let url = URL(string: "http://example.com/a.png")!
        let plain = ImageRequest(url: url).cacheKey
        #expect(plain.raw == plain.processed)
        let small = ImageRequest(url: url, transforms: [Named(identifier: "resize(w=10)")]).cacheKey
        let small2 = ImageRequest(url: URL(string: "http://EXAMPLE.com/a.png")!,
                                  transforms: [Named(identifier: "resize(w=10)")]).cacheKey
        let big = ImageRequest(url: url, transforms: [Named(identifier: "resize(w=20)")]).cacheKey
        let asPNG = ImageRequest(url: url, outputFormat: .png).cacheKey
        #expect(small == small2)
        #expect(small.raw == plain.raw)
        #expect(small.processed != big.processed)
        #expect(small.processed != plain.processed)
        #expect(asPNG.processed != plain.processed)
        // Order of transforms matters.
        let ab = ImageRequest(url: url, transforms: [Named(identifier: "a"), Named(identifier: "b")]).cacheKey
        let ba = ImageRequest(url: url, transforms: [Named(identifier: "b"), Named(identifier: "a")]).cacheKey
        #expect(ab.processed != ba.processed)
    }

    @Test func customKeyReplacesTheURL() {
        let a = ImageRequest(url: URL(string: "http://cdn/a.png?sig=1")!, customCacheKey: "avatar-42").cacheKey
        let b = ImageRequest(url: URL(string: "http://cdn/a.png?sig=2")!, customCacheKey: "avatar-42").cacheKey
        #expect(a.raw == "avatar-42")
        #expect(a == b)
    }
}
