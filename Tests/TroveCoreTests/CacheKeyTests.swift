import Foundation
import Testing

@testable import TroveCore

private struct Named: ImageTransformer {
    let identifier: String
    func transform(_ image: Image) throws -> Image { image }
}

@Suite struct CacheKeyTests {
    @Test func everyStorageKeyGivesBackItsSource() {
        let source = "https://example.com/a.png?x=1"
        let processed = CacheKey(source: source, transforms: ["resize(w=2)", "grayscale"], encoding: .png)
        #expect(CacheKey.source(ofStorageKey: CacheKey(source: source).raw) == source)
        #expect(CacheKey.source(ofStorageKey: processed.processed) == source)
        let post = CacheKey.request(method: "POST", bodyDigest: "abc", source: source)
        #expect(CacheKey.source(ofStorageKey: post) == source)
        let odd = "\u{0}custom:é"
        #expect(CacheKey.source(ofStorageKey: CacheKey(source: odd).raw) == odd)
        #expect(CacheKey.source(ofStorageKey: CacheKey(source: odd, transforms: ["t"]).processed) == odd)
        // A source that looks like a part is still one source.
        let tricky = "s3:abc"
        #expect(CacheKey.source(ofStorageKey: CacheKey(source: tricky, transforms: ["t"]).processed) == tricky)
        #expect(CacheKey.source(ofStorageKey: "\u{0}s99:short") == nil)
    }

    @Test func normalisesSchemeHostDefaultPortAndFragment() {
        let a = CacheKey.normalized(URL(string: "HTTP://Example.COM:80/a/B.png?x=1#frag")!)
        #expect(a == "http://example.com/a/B.png?x=1")
        #expect(CacheKey.normalized(URL(string: "https://example.com:443")!) == "https://example.com/")
        // A non-default port and the query are part of the identity.
        #expect(CacheKey.normalized(URL(string: "http://example.com:8080/a?x=2")!) == "http://example.com:8080/a?x=2")
    }

    /// The scan that skips URLComponents must give exactly what URLComponents gives, and must say no to
    /// every URL it cannot vouch for.
    @Test func quickPathAgreesWithURLComponents() throws {
        let alreadyNormal = [
            "http://example.com/a.png", "https://cdn.example.com/i/b.jpg?w=10&h=20", "http://127.0.0.1:8080/x",
            "http://[::1]:8080/x", "https://a-b.example.org/%20space", "http://example.com/", "ftp://host/path",
            "http://example.com/a?b=c/d", "http://example.com:8443/",
            "http://exämple.com/a"  // URL(string:) has already turned the host into punycode
        ]
        let needsWork = [
            "HTTP://example.com/a", "http://Example.com/a", "http://example.com:80/a", "https://example.com:443/a",
            "http://example.com/a#frag", "http://example.com", "http://example.com?x=1", "http://user@example.com/a",
            "http://example.com:/a", "http://EXAMPLE.com:80", "http://example.com/a?b#",
            "http://%65xample.com/a", "data:text/plain,hello", "file:///tmp/a.png",
            "http://example.com:0080/a", "https://example.com:0443/", "http://example.com:080/a"
        ]
        for text in alreadyNormal {
            let url = try #require(URL(string: text))
            #expect(CacheKey.isAlreadyNormalized(url.absoluteString), "\(text)")
            #expect(CacheKey.normalized(url) == CacheKey.normalizedByComponents(url), "\(text)")
            #expect(CacheKey.normalized(url) == url.absoluteString)
        }
        for text in needsWork {
            guard let url = URL(string: text) else { continue }
            #expect(!CacheKey.isAlreadyNormalized(url.absoluteString), "\(text)")
            #expect(CacheKey.normalized(url) == CacheKey.normalizedByComponents(url), "\(text)")
        }
    }

    /// A URL relative to a base is keyed by the URL it resolves to, by either path.
    @Test func relativeURLsAreKeyedByWhereTheyPoint() throws {
        let onA = try #require(URL(string: "a.png", relativeTo: URL(string: "http://example.com/img/")))
        let onB = try #require(URL(string: "a.png", relativeTo: URL(string: "http://OTHER.example/img/")))
        #expect(CacheKey.normalized(onA) == "http://example.com/img/a.png")
        #expect(CacheKey.normalized(onB) == "http://other.example/img/a.png")
        #expect(CacheKey.normalizedByComponents(onA) == "http://example.com/img/a.png")
    }

    @Test func sameWorkSameKeyDifferentWorkDifferentKey() {
        let url = URL(string: "http://example.com/a.png")!
        let plain = ImageRequest(url: url).cacheKey
        #expect(plain.raw == plain.processed)
        let small = ImageRequest(url: url, transforms: [Named(identifier: "resize(w=10)")]).cacheKey
        let small2 = ImageRequest(
            url: URL(string: "http://EXAMPLE.com/a.png")!,
            transforms: [Named(identifier: "resize(w=10)")]
        ).cacheKey
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

    /// The example from the issue: a custom key that reads like a key plus a transform must not meet the
    /// key with that transform, at either storage string.
    @Test func keysThatLookAlikeAsJoinedStringsNeverCollide() {
        let url = URL(string: "http://example.com/a.png")!
        let sneaky = ImageRequest(url: url, customCacheKey: "a|grayscale").cacheKey
        let real = ImageRequest(url: url, transforms: [Named(identifier: "grayscale")], customCacheKey: "a").cacheKey
        #expect(sneaky != real)
        let storage = [sneaky.raw, sneaky.processed, real.raw, real.processed]
        #expect(sneaky.raw == sneaky.processed && Set(storage).count == 3)
        // Transform boundaries are part of the key: ["ab"] is not ["a", "b"].
        let one = CacheKey(source: "s", transforms: ["ab"]), two = CacheKey(source: "s", transforms: ["a", "b"])
        #expect(one.processed != two.processed)
        // A custom key that spells a processed key's encoding still gets its own raw string.
        let spelled = CacheKey(source: one.processed)
        #expect(spelled.raw != one.processed && spelled.raw == "\u{0}" + one.processed)
        #expect(CacheKey(source: "s", encoding: .png).processed != CacheKey(source: "s", transforms: ["png"]).processed)
    }

    @Test func aKeyIsItsPartsAndReadsAsThem() {
        let key = ImageRequest(
            url: URL(string: "http://example.com/a.png")!,
            transforms: [Named(identifier: "resize(w=10)")], outputFormat: .webp
        ).cacheKey
        #expect(key.source == "http://example.com/a.png" && key.transforms == ["resize(w=10)"] && key.encoding == .webp)
        // A processed key says whether the picture was turned upright (the default) or kept as stored.
        #expect(
            key.description == "http://example.com/a.png | resize(w=10) | encode=webp | pipeline=orientation=upright")
        #expect(key.processed == "\u{0}s24:http://example.com/a.pngt12:resize(w=10)e4:webpp19:orientation=upright")
        let stored = ImageRequest(
            url: URL(string: "http://example.com/a.png")!,
            transforms: [Named(identifier: "resize(w=10)")], options: .keepsStoredOrientation, outputFormat: .webp
        ).cacheKey
        #expect(stored.processed == "\u{0}s24:http://example.com/a.pngt12:resize(w=10)e4:webpp18:orientation=stored")
        #expect(stored.raw == key.raw)
    }

    /// Per-request encoder settings and "the source's format" are parts of the key: a quality-50 result
    /// never answers a quality-80 request, and neither answers a request for the original bytes.
    @Test func encodingOptionsAndSourceFormatAreInTheKey() {
        let url = URL(string: "http://example.com/a.jpg")!
        let plain = ImageRequest(url: url).cacheKey
        let q50 = ImageRequest(url: url, encodingOptions: EncodingOptions(quality: 0.5)).cacheKey
        let q80 = ImageRequest(url: url, encodingOptions: EncodingOptions(quality: 0.8)).cacheKey
        #expect(q50.processed != plain.processed && q50.processed != q80.processed && q50.raw == plain.raw)
        #expect(
            q50.processed
                == "\u{0}s24:http://example.com/a.jpgo48:quality=0.5,level=6,lossless=false,speed=defaultp19:orientation=upright"
        )
        let shrink = Named(identifier: "resize(w=10)")
        let asSource = ImageRequest(url: url, transforms: [shrink], options: .encodesInSourceFormat).cacheKey
        let asPNG = ImageRequest(url: url, transforms: [shrink]).cacheKey
        #expect(asSource.encodesInSourceFormat && asSource.processed != asPNG.processed)
        #expect(
            asSource.description
                == "http://example.com/a.jpg | resize(w=10) | encode=source | pipeline=orientation=upright")
        // An explicit format wins over the source's, and the key says only the format.
        let explicit = ImageRequest(
            url: url, transforms: [shrink], options: .encodesInSourceFormat,
            outputFormat: .webp
        ).cacheKey
        #expect(
            !explicit.encodesInSourceFormat
                && explicit.processed
                    == ImageRequest(url: url, transforms: [shrink], outputFormat: .webp).cacheKey.processed
        )
        // Nothing to process: the original bytes are already in the source's format.
        #expect(ImageRequest(url: url, options: .encodesInSourceFormat).cacheKey.processed == plain.raw)
    }

    @Test func customKeyReplacesTheURL() {
        let a = ImageRequest(url: URL(string: "http://cdn/a.png?sig=1")!, customCacheKey: "avatar-42").cacheKey
        let b = ImageRequest(url: URL(string: "http://cdn/a.png?sig=2")!, customCacheKey: "avatar-42").cacheKey
        #expect(a.raw == "avatar-42")
        #expect(a == b)
    }
}

extension ImageRequest {
    /// The key by the request alone (no pipeline settings), which these tests compare.
    fileprivate var cacheKey: CacheKey { CacheKey(self) }
}
