import Foundation
import Testing
import Trove
import TroveTransformers

@testable import TroveImgproxy

// Signed URLs and presets, with the helpers of `ImgproxyURLTests`.
extension ImgproxyURLTests {
    // MARK: Signatures

    @Test func signedURLsNeedTheRightSignature() throws {
        let signer = try ImgproxySignature(hexKeys: ["736563726574"], hexSalts: ["68656c6c6f"])
        let rest = "/rs:fill:300:400:0/g:nowe/plain/\(Self.source)@webp"
        let signature = ImgproxySignatureTests.independentSignature(
            keyHex: "736563726574", saltHex: "68656c6c6f",
            path: rest)
        let url = try ImgproxyURL.parse(path: "/\(signature)\(rest)", signature: signer)
        #expect(url.options.width == 300 && url.format == .webp && url.options.gravity == .anchor(.northWest))

        let forbidden = ImgproxyURLError(
            status: 403,
            message:
                "invalid signature: sign the path after the signature segment with a configured key and salt")
        #expect(error("/insecure\(rest)", signature: signer) == forbidden)
        #expect(
            error("/\(signature)/rs:fill:300:401:0/g:nowe/plain/\(Self.source)@webp", signature: signer) == forbidden)
        #expect(error("/\(rest)", signature: signer) == forbidden)
        #expect(error(rest, signature: signer) == forbidden)
        #expect(error("", signature: signer) == forbidden)
        // The signature is checked before the options: a signed-wrong URL with a bad option is still 403.
        #expect(error("/bad/nonsense:1/plain/\(Self.source)", signature: signer) == forbidden)
    }

    // MARK: Presets

    @Test func presetsExpandInPlaceAndDefaultAppliesFirst() throws {
        let presets = try ImgproxyPresets(list: "default=q:60/rt:fill, thumb=rs:fit:100:100/f:webp,sharp=pr:thumb/q:90")
        #expect(presets.names == ["default", "sharp", "thumb"])
        let plain = try options("w:10", presets: presets)
        #expect(plain.quality == 60 && plain.resizingType == .fill && plain.width == 10)
        let thumb = try options("pr:thumb", presets: presets)
        #expect(thumb.resizingType == .fit && thumb.width == 100 && thumb.format == .webp && thumb.quality == 60)
        // Later options override the preset; nested presets expand.
        let overridden = try options("preset:sharp/w:50", presets: presets)
        #expect(overridden.width == 50 && overridden.height == 100 && overridden.quality == 90)
        #expect(
            error("/_/pr:nope/plain/\(Self.source)", presets: presets)
                == ImgproxyURLError(status: 400, message: "unknown preset 'nope'"))
    }

    @Test func presetsOnlyModeReadsPresetNames() throws {
        let presets = try ImgproxyPresets(
            definitions: ["default=q:70", "small=w:64/h:64", "webp=f:webp"],
            onlyPresets: true)
        let url = try ImgproxyURL.parse(
            path: "/_/small:webp/plain/\(Self.source)", signature: .disabled,
            presets: presets)
        #expect(url.options.width == 64 && url.options.height == 64 && url.format == .webp && url.quality == 70)
        #expect(error("/_/small:w/plain/\(Self.source)", presets: presets)?.message == "unknown preset 'w'")
        // An option is not a preset name in this mode.
        #expect(error("/_/w:100/plain/\(Self.source)", presets: presets)?.message == "unknown preset 'w'")
    }

    @Test func badPresetDefinitionsAreConfigurationErrors() {
        let cases: [([String], String)] = [
            (["thumb"], "preset definition 'thumb' has no '=': write name=option/option, e.g. thumb=rs:fill:200:200"),
            (["a=w:10", "a=w:20"], "preset 'a' is defined twice; keep one definition"),
            (["a=zz:1"], "preset 'a': unknown processing option 'zz'"),
            (
                ["a=w:x"],
                "preset 'a': invalid argument 'x' for processing option 'w': give a whole number of pixels from 0 to 16384"
            ),
            (["a=pr:b", "b=pr:a"], "preset 'a': preset 'a' names itself (through a > b)"),
            (["a=pr:missing"], "preset 'a': unknown preset 'missing'")
        ]
        for (definitions, message) in cases {
            do {
                _ = try ImgproxyPresets(definitions: definitions)
                Issue.record("\(definitions) was accepted")
            } catch {
                #expect(error.message == message)
            }
        }
    }
}
