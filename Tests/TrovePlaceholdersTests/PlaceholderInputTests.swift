import Testing
import TrovePlaceholders
import TroveTestSupport

/// Degenerate images still hash; wrong sizes, strides, buffers, component counts and damaged hashes are
/// refused with a `PlaceholderError` that says what was wrong; no input traps.
@Suite struct PlaceholderInputTests {
    /// The example from Wolt's BlurHash documentation: 4x3 components.
    static let wolt = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"

    static func solid(_ width: Int, _ height: Int, _ rgba: [UInt8]) -> [UInt8] {
        Array([[UInt8]](repeating: rgba, count: width * height).joined())
    }

    // MARK: Degenerate images

    @Test func degenerateImagesHashAndDecode() throws {
        let images: [(width: Int, height: Int, rgba: [UInt8])] = [
            (1, 1, [200, 100, 50, 255]),
            (1, 1, [200, 100, 50, 0]),
            (100, 1, Self.solid(100, 1, [0, 0, 0, 255])),
            (1, 100, Self.solid(1, 100, [255, 255, 255, 255])),
            (33, 17, Self.solid(33, 17, [12, 34, 56, 0])),
            (100, 100, Self.solid(100, 100, [255, 255, 255, 128]))
        ]
        for image in images {
            let thumb = try ThumbHash.encode(rgba: image.rgba, width: image.width, height: image.height)
            let decoded = try ThumbHash.decode(thumb)
            #expect(decoded.width >= 1 && decoded.height >= 1)
            #expect(decoded.rgba.count == decoded.width * decoded.height * 4)
            #expect(max(decoded.width, decoded.height) == ThumbHash.decodedLongSide)
            for (x, y) in [(1, 1), (4, 3), (9, 9)] {
                let blur = try BlurHash.encode(
                    rgba: image.rgba, width: image.width, height: image.height, xComponents: x, yComponents: y)
                #expect(blur.utf8.count == 4 + 2 * x * y)
                #expect(try BlurHash.decode(blur, width: 5, height: 3).count == 5 * 3 * 4)
            }
        }
    }

    @Test func flatOpaqueImageDecodesToItsColour() throws {
        let hash = try ThumbHash.encode(rgba: Self.solid(24, 24, [52, 140, 200, 255]), width: 24, height: 24)
        let color = try ThumbHash.averageColor(of: hash)
        #expect(color.alpha == 1)
        #expect(abs(color.red - 52.0 / 255) < 0.04 && abs(color.blue - 200.0 / 255) < 0.04)
        // The DC term alone. (BlurHash's basis, cos(pi * i * x / width), is not centred on the pixels, so even
        // a flat image has AC terms, as in the reference.)
        let blur = try BlurHash.encode(
            rgba: Self.solid(24, 24, [52, 140, 200, 255]), width: 24, height: 24, xComponents: 1, yComponents: 1)
        let pixels = try BlurHash.decode(blur, width: 4, height: 4)
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            #expect(Array(pixels[offset..<(offset + 4)]) == [52, 140, 200, 255])
        }
    }

    /// ThumbHash composites over the average colour, so what hides under alpha 0 does not count; BlurHash has
    /// no alpha and, like its reference, reads the stored colour whatever the alpha.
    @Test func alphaHandling() throws {
        let hidden1 = try ThumbHash.encode(rgba: Self.solid(8, 8, [255, 0, 0, 0]), width: 8, height: 8)
        let hidden2 = try ThumbHash.encode(rgba: Self.solid(8, 8, [0, 0, 255, 0]), width: 8, height: 8)
        #expect(hidden1 == hidden2)
        #expect(try ThumbHash.averageColor(of: hidden1).alpha == 0)
        let opaque = try BlurHash.encode(rgba: Self.solid(8, 8, [10, 200, 30, 255]), width: 8, height: 8)
        let clear = try BlurHash.encode(rgba: Self.solid(8, 8, [10, 200, 30, 0]), width: 8, height: 8)
        #expect(opaque == clear)
    }

    @Test func aspectRatioFollowsTheInput() throws {
        let wide = try ThumbHash.encode(rgba: Self.solid(100, 25, [1, 2, 3, 255]), width: 100, height: 25)
        #expect(try ThumbHash.aspectRatio(of: wide) == 7.0 / 2.0)
        let decoded = try ThumbHash.decode(wide)
        #expect(decoded.width == 32 && decoded.height == 9)
        let tall = try ThumbHash.encode(rgba: Self.solid(3, 100, [1, 2, 3, 255]), width: 3, height: 100)
        #expect(try ThumbHash.aspectRatio(of: tall) == 1.0 / 7.0)
    }

    // MARK: Errors when encoding

    @Test func thumbHashRefusesImagesOver100x100() {
        #expect(throws: PlaceholderError.imageTooLarge(width: 101, height: 100, limit: 100)) {
            try ThumbHash.encode(rgba: Self.solid(101, 100, [0, 0, 0, 255]), width: 101, height: 100)
        }
        #expect(throws: PlaceholderError.imageTooLarge(width: 1, height: 5000, limit: 100)) {
            try ThumbHash.encode(rgba: [], width: 1, height: 5000)
        }
        let error = PlaceholderError.imageTooLarge(width: 101, height: 100, limit: 100)
        #expect(error.description == "ThumbHash encodes images of at most 100x100 pixels, got 101x100: downscale first")
    }

    @Test func sizesBelowOnePixelAreRefused() {
        for (width, height) in [(0, 1), (1, 0), (-3, 5), (0, 0)] {
            #expect(throws: PlaceholderError.invalidSize(width: width, height: height)) {
                try ThumbHash.encode(rgba: [], width: width, height: height)
            }
            #expect(throws: PlaceholderError.invalidSize(width: width, height: height)) {
                try BlurHash.encode(rgba: [], width: width, height: height)
            }
            #expect(throws: PlaceholderError.invalidSize(width: width, height: height)) {
                try BlurHash.decode(Self.wolt, width: width, height: height)
            }
        }
        #expect(throws: PlaceholderError.invalidSize(width: Int.max, height: 2)) {
            try BlurHash.encode(rgba: [], width: Int.max, height: 2)
        }
        #expect(throws: PlaceholderError.invalidSize(width: Int.max / 2, height: 4)) {
            try BlurHash.decode(Self.wolt, width: Int.max / 2, height: 4)
        }
        #expect(
            PlaceholderError.invalidSize(width: 0, height: 1).description
                == "image size 0x1 is invalid: width and height must be at least 1")
    }

    @Test func shortStridesAndBuffersAreRefused() throws {
        let pixels = Self.solid(10, 10, [9, 9, 9, 255])
        #expect(throws: PlaceholderError.invalidBytesPerRow(bytesPerRow: 39, width: 10)) {
            try ThumbHash.encode(rgba: pixels, width: 10, height: 10, bytesPerRow: 39)
        }
        #expect(throws: PlaceholderError.bufferTooSmall(needed: 400, actual: 399)) {
            try BlurHash.encode(rgba: Array(pixels.dropLast()), width: 10, height: 10)
        }
        // With a stride, the last row needs only its own pixels.
        #expect(throws: PlaceholderError.bufferTooSmall(needed: 9 * 48 + 40, actual: 400)) {
            try ThumbHash.encode(rgba: pixels, width: 10, height: 10, bytesPerRow: 48)
        }
        let strided = [UInt8](repeating: 7, count: 9 * 48 + 40)
        _ = try ThumbHash.encode(rgba: strided, width: 10, height: 10, bytesPerRow: 48)
        #expect(
            PlaceholderError.invalidBytesPerRow(bytesPerRow: 39, width: 10).description
                == "bytesPerRow 39 is shorter than a row of 10 RGBA8 pixels (10 * 4 bytes)")
        #expect(
            PlaceholderError.bufferTooSmall(needed: 400, actual: 399).description
                == "the pixel buffer holds 399 bytes, but the size and row stride need 400")
    }

    @Test func blurHashComponentCountsMustBe1To9() throws {
        let pixels = Self.solid(4, 4, [1, 2, 3, 255])
        for (x, y) in [(0, 3), (4, 0), (10, 3), (4, 10), (-1, -1)] {
            #expect(throws: PlaceholderError.invalidComponentCount(x: x, y: y)) {
                try BlurHash.encode(rgba: pixels, width: 4, height: 4, xComponents: x, yComponents: y)
            }
        }
        #expect(try BlurHash.encode(rgba: pixels, width: 4, height: 4, xComponents: 9, yComponents: 1).utf8.count == 22)
        #expect(
            PlaceholderError.invalidComponentCount(x: 10, y: 3).description
                == "BlurHash component counts must be 1...9 each, got 10x3")
    }

    // MARK: Errors when decoding

    @Test func damagedBlurHashesAreRefused() {
        #expect(throws: PlaceholderError.blurHashTooShort(length: 0)) { try BlurHash.decode("", width: 4, height: 4) }
        #expect(throws: PlaceholderError.blurHashTooShort(length: 5)) {
            try BlurHash.decode("00000", width: 4, height: 4)
        }
        #expect(throws: PlaceholderError.blurHashLengthMismatch(expected: 28, actual: 27, x: 4, y: 3)) {
            try BlurHash.decode(String(Self.wolt.dropLast()), width: 4, height: 4)
        }
        #expect(throws: PlaceholderError.blurHashLengthMismatch(expected: 6, actual: 28, x: 1, y: 1)) {
            try BlurHash.decode("0" + Self.wolt.dropFirst(), width: 4, height: 4)
        }
        #expect(throws: PlaceholderError.invalidBlurHashCharacter("\"!\"", offset: 26)) {
            try BlurHash.decode(String(Self.wolt.dropLast(2)) + "!j", width: 4, height: 4)
        }
        #expect(throws: PlaceholderError.invalidBlurHashCharacter("\" \"", offset: 0)) {
            try BlurHash.decode(" EHV6nWB2yk8pyo0adR*.7kCMdnj", width: 4, height: 4)
        }
        // "é" is two UTF-8 bytes (0xC3 0xA9); offsets count bytes.
        #expect(throws: PlaceholderError.invalidBlurHashCharacter("byte 0xC3", offset: 1)) {
            try BlurHash.decode("0é000", width: 4, height: 4)
        }
        #expect(
            PlaceholderError.blurHashLengthMismatch(expected: 28, actual: 27, x: 4, y: 3).description
                == "BlurHash is 27 characters, but its first character declares 4x3 components, which take 28")
        #expect(
            PlaceholderError.invalidBlurHashCharacter("\"!\"", offset: 26).description
                == "BlurHash has \"!\" at offset 26, which is not in its base-83 alphabet")
        #expect(
            PlaceholderError.blurHashTooShort(length: 5).description
                == "BlurHash is 5 characters, shorter than the 6 of the smallest (1x1 components)")
    }

    @Test func punchMustBeFiniteAndPositive() throws {
        for punch in [0, -1, Double.infinity] {
            #expect(throws: PlaceholderError.invalidPunch(punch)) {
                try BlurHash.decode(Self.wolt, width: 4, height: 4, punch: punch)
            }
        }
        #expect(throws: PlaceholderError.self) { try BlurHash.decode(Self.wolt, width: 4, height: 4, punch: .nan) }
        // A softer punch than 1 (the TypeScript decoder allows it) is fine.
        #expect(try BlurHash.decode(Self.wolt, width: 4, height: 4, punch: 0.5).count == 64)
        #expect(
            PlaceholderError.invalidPunch(0).description == "BlurHash punch must be a finite number above 0, got 0.0")
    }

    @Test func shortThumbHashesAreRefused() throws {
        #expect(throws: PlaceholderError.thumbHashTooShort(needed: 5, actual: 0)) { try ThumbHash.decode([]) }
        #expect(throws: PlaceholderError.thumbHashTooShort(needed: 5, actual: 4)) {
            try ThumbHash.averageColor(of: [1, 2, 3, 4])
        }
        #expect(throws: PlaceholderError.thumbHashTooShort(needed: 5, actual: 2)) {
            try ThumbHash.aspectRatio(of: [1, 2])
        }
        let hash = try ThumbHash.encode(rgba: Self.solid(10, 10, [1, 2, 3, 200]), width: 10, height: 10)
        #expect(throws: PlaceholderError.thumbHashTooShort(needed: hash.count, actual: hash.count - 1)) {
            try ThumbHash.decode(Array(hash.dropLast()))
        }
        // The alpha flag calls for the alpha byte.
        #expect(throws: PlaceholderError.thumbHashTooShort(needed: 6, actual: 5)) {
            try ThumbHash.averageColor(of: Array(hash.prefix(5)))
        }
        // Bytes after the hash are ignored, as in the reference.
        #expect(try ThumbHash.decode(hash + [0xFF, 0xFF]) == ThumbHash.decode(hash))
        #expect(
            PlaceholderError.thumbHashTooShort(needed: 5, actual: 4).description
                == "ThumbHash is 4 bytes, but its header calls for at least 5")
    }

    @Test func base64RoundTripsAndRefusesGarbage() throws {
        let hash = try ThumbHash.encode(rgba: Self.solid(7, 5, [90, 80, 70, 255]), width: 7, height: 5)
        let text = ThumbHash.base64String(hash)
        #expect(try ThumbHash.hash(fromBase64: text) == hash)
        #expect(try ThumbHash.hash(fromBase64: text.filter { $0 != "=" }) == hash)
        #expect(ThumbHash.base64String([0xFB, 0xFF]) == "+/8=")
        #expect(ThumbHash.base64String([1]) == "AQ==")
        #expect(try ThumbHash.hash(fromBase64: "AQ") == [1])
        #expect(throws: PlaceholderError.invalidBase64(offset: 3)) { try ThumbHash.hash(fromBase64: "abc$") }
        #expect(throws: PlaceholderError.invalidBase64(offset: 4)) { try ThumbHash.hash(fromBase64: "abcde") }
        #expect(throws: PlaceholderError.invalidBase64(offset: 1)) { try ThumbHash.hash(fromBase64: "A=") }
        #expect(throws: PlaceholderError.invalidBase64(offset: 1)) { try ThumbHash.hash(fromBase64: "A=AA") }
    }

    // MARK: No input traps

    /// Random bytes as ThumbHashes and random text as BlurHashes either decode or throw.
    @Test func randomHashesNeverTrap() {
        var generator = SplitMix64(seed: 0x7105_11A5)
        let alphabet = Array(
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~!".utf8)
        var decoded = 0
        for _ in 0..<2000 {
            let length = Int(generator.next() % 40)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if let image = try? ThumbHash.decode(bytes) {
                #expect(image.rgba.count == image.width * image.height * 4)
                decoded += 1
            }
            _ = try? ThumbHash.averageColor(of: bytes)
            let text = String(
                decoding: (0..<Int(generator.next() % 30)).map { _ in
                    alphabet[Int(generator.next() % UInt64(alphabet.count))]
                }, as: UTF8.self)
            _ = try? BlurHash.decode(text, width: 3, height: 2, punch: 2)
            _ = try? ThumbHash.hash(fromBase64: text)
        }
        #expect(decoded > 0)
    }

    /// Random pixels at random sizes up to 100x100, with random component counts.
    @Test func randomImagesHash() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<40 {
            let width = Int(generator.next() % 100) + 1, height = Int(generator.next() % 100) + 1
            let pixels = SplitMix64.bytes(width * height * 4, seed: generator.next())
            let thumb = try ThumbHash.encode(rgba: pixels, width: width, height: height)
            #expect(try ThumbHash.decode(thumb).rgba.isEmpty == false)
            let x = Int(generator.next() % 9) + 1, y = Int(generator.next() % 9) + 1
            let blur = try BlurHash.encode(rgba: pixels, width: width, height: height, xComponents: x, yComponents: y)
            #expect(try BlurHash.decode(blur, width: 6, height: 4).count == 96)
        }
    }
}
