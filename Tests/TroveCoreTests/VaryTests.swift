import Foundation
import Testing
import TroveCore

/// RFC 9111 §4.1: which request fields select a stored response, and when a new request matches.
@Suite struct VaryTests {
    func fields(_ lines: [(String, String)]) -> [HeaderField] {
        lines.map { HeaderField(name: $0.0, value: $0.1) }
    }

    @Test func namesComeFromEveryVaryLineOnceInLowerCase() {
        #expect(Vary.names(in: fields([("Content-Type", "text/plain")])) == .none)
        #expect(Vary.names(in: fields([("Vary", "Foo, BAR"), ("vary", "foo, Baz")])) == .fields(["foo", "bar", "baz"]))
        #expect(Vary.names(in: fields([("Vary", ", ")])) == .none)
    }

    @Test(arguments: ["*", "*, *", ", *", "*, Foo", "Foo, *"])
    func aStarAnywhereMatchesNothing(value: String) {
        #expect(Vary.names(in: fields([("Vary", value)])) == .any)
        #expect(Vary.names(in: fields([("Vary", "Foo"), ("Vary", value)])) == .any)
    }

    @Test func aRequestMatchesOnlyWithTheSameValuesOrTheSameAbsences() {
        let stored = Vary.selecting(["foo", "bar"], in: ["Foo": "1"])
        #expect(stored == [SelectingField(name: "foo", value: "1"), SelectingField(name: "bar", value: nil)])
        #expect(Vary.matches(stored, ["foo": "1", "Other": "x"]))
        #expect(!Vary.matches(stored, ["foo": "2"]))
        #expect(!Vary.matches(stored, [:]))
        #expect(!Vary.matches(stored, ["foo": "1", "bar": "abc"]))
    }

    @Test func valuesAreNormalisedWhereTheirGrammarAllows() {
        let stored = Vary.selecting(["foo", "accept"], in: ["Foo": "1,2", "Accept": "Image/WebP, */*"])
        #expect(Vary.matches(stored, ["foo": " 1, 2 ", "accept": "image/webp,*/*"]))
        // Two lines of a field are one list (a dictionary holds them as two spellings of the name).
        #expect(Vary.matches(Vary.selecting(["foo"], in: ["Foo": "1, 2"]), ["foo": "1", "FOO": "2"]))
        // Case counts where the field's grammar does not say otherwise.
        #expect(!Vary.matches(Vary.selecting(["foo"], in: ["Foo": "a"]), ["foo": "A"]))
    }

    @Test func variantKeysAreLengthPrefixedSoValuesNeverSpellAnotherSet() {
        let one = CacheKey.variant(of: "http://a/x", selecting: [SelectingField(name: "foo", value: "1n3:bar")])
        let two = CacheKey.variant(
            of: "http://a/x",
            selecting: [SelectingField(name: "foo", value: "1"), SelectingField(name: "bar", value: nil)])
        let absent = CacheKey.variant(of: "http://a/x", selecting: [SelectingField(name: "foo", value: nil)])
        let empty = CacheKey.variant(of: "http://a/x", selecting: [SelectingField(name: "foo", value: "")])
        #expect(Set([one, two, absent, empty]).count == 4)
        // A variant belongs to its URL: forgetting the URL finds it.
        #expect(CacheKey.source(ofStorageKey: one) == "http://a/x")
        let request = CacheKey.request(method: "POST", bodyDigest: "d", source: "http://a/x")
        #expect(CacheKey.source(ofStorageKey: CacheKey.variant(of: request, selecting: [])) == "http://a/x")
    }
}
