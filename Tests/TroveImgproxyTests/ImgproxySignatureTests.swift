import Crypto
import Foundation
import Testing

@testable import TroveImgproxy

/// Signatures as imgproxy makes them, computed here independently with swift-crypto.
@Suite struct ImgproxySignatureTests {
    /// HMAC-SHA256(key, salt + path), URL-safe base64 without padding, written out in the test.
    static func independentSignature(keyHex: String, saltHex: String, path: String) -> String {
        func bytes(_ hex: String) -> [UInt8] {
            var out = [UInt8]()
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                out.append(UInt8(hex[index..<next], radix: 16)!)
                index = next
            }
            return out
        }
        let mac = HMAC<SHA256>.authenticationCode(
            for: bytes(saltHex) + Array(path.utf8),
            using: SymmetricKey(data: bytes(keyHex)))
        return Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func matchesImgproxysDocumentedExample() throws {
        // docs.imgproxy.net, "Signing a URL": key "secret", salt "hello".
        let signer = try ImgproxySignature(hexKeys: ["736563726574"], hexSalts: ["68656C6C6F"])
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(signer.sign(path: path) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        #expect(signer.verify(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", path: path))
    }

    @Test func signsAndVerifiesAsAnIndependentHMAC() throws {
        let key = "0123456789abcdef0123456789abcdef", salt = "fedcba9876543210"
        let signer = try ImgproxySignature(hexKeys: [key], hexSalts: [salt])
        for path in ["/rs:fit:300:300/plain/https://example.com/a.jpg@webp", "/q:80/aHR0cHM6Ly9leGFtcGxlLmNvbS9h"] {
            let expected = Self.independentSignature(keyHex: key, saltHex: salt, path: path)
            #expect(signer.sign(path: path) == expected)
            #expect(signer.verify(signature: expected, path: path))
            // Padded, it is another spelling of the same bytes: refused, as imgproxy refuses it.
            #expect(!signer.verify(signature: expected + "=", path: path))
            #expect(!signer.verify(signature: expected, path: path + "x"))
        }
    }

    @Test func refusesWrongTruncatedAndGarbageSignatures() throws {
        let signer = try ImgproxySignature(hexKeys: ["aa"], hexSalts: ["bb"])
        let path = "/w:10/plain/https://example.com/a.png"
        let good = signer.sign(path: path)
        var flipped = Array(good)
        flipped[5] = flipped[5] == "A" ? "B" : "A"
        #expect(!signer.verify(signature: String(flipped), path: path))
        #expect(!signer.verify(signature: good.dropLast(2), path: path))
        #expect(!signer.verify(signature: "", path: path))
        #expect(!signer.verify(signature: "_", path: path))
        #expect(!signer.verify(signature: "insecure", path: path))
        #expect(!signer.verify(signature: "!!!", path: path))
    }

    /// One signature, one spelling: `=` padding of any length and a last character whose unused bits are
    /// set decode to the same bytes, and imgproxy refuses both; so does this check.
    @Test func paddedAndNonCanonicalSpellingsOfAGoodSignatureAreRefused() throws {
        let signer = try ImgproxySignature(hexKeys: ["aa"], hexSalts: ["bb"])
        let path = "/w:10/plain/https://example.com/a.png"
        let good = signer.sign(path: path)
        #expect(good.count == 43 && signer.verify(signature: good, path: path))
        for padding in [1, 2, 3, 64] {
            let padded = good + String(repeating: "=", count: padding)
            #expect(Base64URL.decode(padded) == Base64URL.decode(good), "the lenient reading takes it")
            #expect(!signer.verify(signature: padded, path: path), "\(padding) '='")
        }
        // 43 characters carry 258 bits for 256: the last one's two low bits are unused and must be zero.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(alphabet.firstIndex(of: good.last!))
        let stray = String(good.dropLast()) + String(alphabet[last | 1])
        #expect(Base64URL.decode(stray) == Base64URL.decode(good))
        #expect(!signer.verify(signature: stray, path: path))
    }

    @Test func aSignatureSizeTruncatesTheHMACAsImgproxysSignatureSizeDoes() throws {
        let key = "0123456789abcdef0123456789abcdef", salt = "fedcba9876543210"
        let path = "/rs:fit:300:300/plain/https://example.com/a.jpg@webp"
        let full = Self.independentSignature(keyHex: key, saltHex: salt, path: path)
        let short = try ImgproxySignature(hexKeys: [key], hexSalts: [salt], size: 8)
        // The first 8 bytes of the HMAC, base64url without padding: 11 characters.
        let truncated = short.sign(path: path)
        #expect(truncated.count == 11)
        #expect(Base64URL.decode(truncated) == Array(Base64URL.decode(full)!.prefix(8)))
        #expect(short.verify(signature: truncated, path: path))
        #expect(!short.verify(signature: full, path: path))
        #expect(!short.verify(signature: truncated, path: path + "x"))
    }

    @Test func anyOfSeveralKeyPairsVerifiesForRotation() throws {
        let signer = try ImgproxySignature(hexKeys: ["01020304", "a0b0c0d0"], hexSalts: ["05", "e0f0"])
        let path = "/rs:fill:100:100/plain/https://example.com/x.jpg"
        let old = Self.independentSignature(keyHex: "01020304", saltHex: "05", path: path)
        let new = Self.independentSignature(keyHex: "a0b0c0d0", saltHex: "e0f0", path: path)
        let other = Self.independentSignature(keyHex: "a0b0c0d0", saltHex: "05", path: path)
        #expect(signer.verify(signature: old, path: path))
        #expect(signer.verify(signature: new, path: path))
        #expect(!signer.verify(signature: other, path: path))
        #expect(signer.sign(path: path) == old)
        #expect(signer.isRequired)
    }

    @Test func withoutKeysEverySignaturePasses() {
        let signer = ImgproxySignature.disabled
        #expect(!signer.isRequired)
        #expect(signer.verify(signature: "_", path: "/anything"))
        #expect(signer.verify(signature: "insecure", path: "/anything"))
        #expect(signer.sign(path: "/x") == "insecure")
    }

    @Test func hexErrorsAreClearConfigurationErrors() {
        #expect(throws: ImgproxyConfigurationError.self) {
            try ImgproxySignature(hexKeys: ["abc"], hexSalts: ["00"])
        }
        do {
            _ = try ImgproxySignature(hexKeys: ["zz"], hexSalts: ["00"])
            Issue.record("a non-hex key was accepted")
        } catch {
            #expect(error.message.contains("signing key is not hex"))
        }
        do {
            _ = try ImgproxySignature(hexKeys: ["00"], hexSalts: ["0g"])
            Issue.record("a non-hex salt was accepted")
        } catch {
            #expect(error.message.contains("signing salt is not hex"))
        }
        do {
            _ = try ImgproxySignature(hexKeys: ["00", "11"], hexSalts: ["00"])
            Issue.record("two keys with one salt were accepted")
        } catch {
            #expect(error.message == "2 signing keys but 1 salts: give one salt for each key, in order")
        }
        do {
            _ = try ImgproxySignature.KeyPair(hexKey: "", hexSalt: "")
            Issue.record("an empty key was accepted")
        } catch {
            #expect(error.message.contains("signing key is not hex"))
        }
    }
}
