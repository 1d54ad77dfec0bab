#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(ucrt)
    import ucrt
#endif

/// ThumbHash, Evan Wallace's image placeholder: a DCT of a small image in a luminance, two colour and an
/// alpha channel, in at most 25 bytes that keep the average colour, the aspect ratio and alpha.
///
/// The output is byte for byte the reference implementation's (JavaScript, float64): the same operations in
/// the same order, `Math.round` (ties up) and, when decoding, truncation to bytes. Precomputed cosine tables
/// change no result, since each entry is the value the reference computes in its loops. A flat or mirror-
/// symmetric image has AC terms that are rounding noise, which the format's normalisation magnifies, so its
/// hash can change with the last bit of the platform's `cos` (as it does between the JavaScript and C ports).
package enum ThumbHash: Sendable {
    /// The longest side `encode` takes, as in the reference: downscale larger images first (more pixels add
    /// nothing a ThumbHash can hold).
    package static let maximumInputSide = 100

    /// The long side of a decoded placeholder, as in the reference; the short side follows the aspect ratio.
    package static let decodedLongSide = 32

    /// A colour with each channel in 0...1, not premultiplied by alpha.
    package struct Color: Sendable, Equatable {
        /// Red, 0...1.
        package var red: Double
        /// Green, 0...1.
        package var green: Double
        /// Blue, 0...1.
        package var blue: Double
        /// Alpha, 0...1; 1 for a hash of an opaque image.
        package var alpha: Double

        /// A colour from its four channels.
        package init(red: Double, green: Double, blue: Double, alpha: Double) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }
    }

    // MARK: Encoding

    /// The ThumbHash of straight-alpha RGBA8 pixels, at most 100x100 (`maximumInputSide`).
    ///
    /// - Parameters:
    ///   - rgba: The rows, top to bottom, 4 bytes per pixel; colour not premultiplied by alpha.
    ///   - bytesPerRow: The stride between rows; nil for tightly packed rows (`width * 4`).
    /// - Throws: `PlaceholderError` for a size below 1x1 or over 100x100, a short stride or a short buffer.
    package static func encode(rgba: [UInt8], width: Int, height: Int, bytesPerRow: Int? = nil) throws -> [UInt8] {
        try rgba.withUnsafeBytes { try encode(rgba: $0, width: width, height: height, bytesPerRow: bytesPerRow) }
    }

    /// The ThumbHash of straight-alpha RGBA8 pixels in caller memory, at most 100x100 (`maximumInputSide`).
    ///
    /// - Parameters:
    ///   - rgba: The rows, top to bottom, 4 bytes per pixel; colour not premultiplied by alpha.
    ///   - bytesPerRow: The stride between rows; nil for tightly packed rows (`width * 4`).
    /// - Throws: `PlaceholderError` for a size below 1x1 or over 100x100, a short stride or a short buffer.
    package static func encode(
        rgba: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int? = nil
    ) throws -> [UInt8] {
        guard width >= 1, height >= 1 else { throw PlaceholderError.invalidSize(width: width, height: height) }
        guard width <= maximumInputSide, height <= maximumInputSide else {
            throw PlaceholderError.imageTooLarge(width: width, height: height, limit: maximumInputSide)
        }
        let pixels = try RGBAPixels(rgba, width: width, height: height, bytesPerRow: bytesPerRow)
        return encode(pixels)
    }

    private static func encode(_ image: RGBAPixels) -> [UInt8] {
        let w = image.width, h = image.height, count = w * h
        let bytes = image.bytes

        // The alpha-weighted average colour. Every pixel is composited over it below, so the colour under
        // alpha 0 does not count and a translucent edge fades to the image's own colour, not to black.
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let o = image.offset(x: x, y: y)
                let alpha = Int(bytes[o + 3])
                let weight = alphaOver255[alpha]
                avgR += weight * Double(bytes[o])
                avgG += weight * Double(bytes[o + 1])
                avgB += weight * Double(bytes[o + 2])
                avgA += alphaUnit[alpha]
            }
        }
        if avgA != 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }

        let hasAlpha = avgA < Double(count)
        // Alpha costs luminance detail: 5 components on the long side instead of 7.
        let lLimit = hasAlpha ? 5 : 7
        let longSide = Double(max(w, h))
        let lx = max(1, roundLikeJS(Double(lLimit * w) / longSide))
        let ly = max(1, roundLikeJS(Double(lLimit * h) / longSide))

        // LPQA: luminance, yellow-blue, red-green and alpha, each pixel composited over the average colour.
        var l = [Double](repeating: 0, count: count)
        var p = [Double](repeating: 0, count: count)
        var q = [Double](repeating: 0, count: count)
        var a = [Double](repeating: 0, count: count)
        for y in 0..<h {
            for x in 0..<w {
                let o = image.offset(x: x, y: y), i = y * w + x
                let alpha = alphaUnit[Int(bytes[o + 3])], weight = alphaOver255[Int(bytes[o + 3])]
                let r = avgR * (1 - alpha) + weight * Double(bytes[o])
                let g = avgG * (1 - alpha) + weight * Double(bytes[o + 1])
                let b = avgB * (1 - alpha) + weight * Double(bytes[o + 2])
                l[i] = (r + g + b) / 3
                p[i] = (r + g) / 2 - b
                q[i] = r - g
                a[i] = alpha
            }
        }

        let lNX = max(3, lx), lNY = max(3, ly)
        let cosines = ThumbHashCosineTables(width: w, height: h, rows: max(lNY, 5))
        let lChannel = cosines.encode(l, nx: lNX, ny: lNY)
        let pChannel = cosines.encode(p, nx: 3, ny: 3)
        let qChannel = cosines.encode(q, nx: 3, ny: 3)
        let aChannel = hasAlpha ? cosines.encode(a, nx: 5, ny: 5) : nil

        // The header: 24 bits, then 16.
        let isLandscape = w > h
        var header24 = quantize(63 * lChannel.dc, max: 63)
        header24 |= quantize(31.5 + 31.5 * pChannel.dc, max: 63) << 6
        header24 |= quantize(31.5 + 31.5 * qChannel.dc, max: 63) << 12
        header24 |= quantize(31 * lChannel.scale, max: 31) << 18
        header24 |= hasAlpha ? 1 << 23 : 0
        var header16 = isLandscape ? ly : lx
        header16 |= quantize(63 * pChannel.scale, max: 63) << 3
        header16 |= quantize(63 * qChannel.scale, max: 63) << 9
        header16 |= isLandscape ? 1 << 15 : 0
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255),
            UInt8(header16 & 255), UInt8(header16 >> 8 & 255)
        ]
        if let aChannel {
            hash.append(UInt8(quantize(15 * aChannel.dc, max: 15) | quantize(15 * aChannel.scale, max: 15) << 4))
        }

        // The AC terms, 4 bits each, low nibble first.
        var index = 0
        for channel in [lChannel, pChannel, qChannel] + (aChannel.map { [$0] } ?? []) {
            for f in channel.ac {
                let nibble = UInt8(quantize(15 * f, max: 15))
                if index & 1 == 0 { hash.append(nibble) } else { hash[hash.count - 1] |= nibble << 4 }
                index += 1
            }
        }
        return hash
    }

    // MARK: Decoding

    /// The placeholder image a ThumbHash describes, at the reference's size: 32 pixels on the long side
    /// (`decodedLongSide`), the other from the stored aspect ratio, at least 1. Bytes after the hash are
    /// ignored.
    ///
    /// - Throws: `PlaceholderError.thumbHashTooShort` when the hash is shorter than its header says.
    package static func decode(_ hash: [UInt8]) throws -> PlaceholderImage {
        let header = try Header(hash)
        let lx = header.lx, ly = header.ly, hasAlpha = header.hasAlpha

        // The AC terms; colour is boosted 1.25x, as in the reference, against quantisation's loss of saturation.
        var nibbleIndex = 0
        func readChannel(nx: Int, ny: Int, scale: Double) -> [Double] {
            var ac: [Double] = []
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    let byte = hash[header.acStart + nibbleIndex >> 1]
                    let nibble = byte >> ((nibbleIndex & 1) << 2) & 15
                    ac.append((Double(nibble) / 7.5 - 1) * scale)
                    nibbleIndex += 1
                    cx += 1
                }
            }
            return ac
        }
        let lAC = readChannel(nx: lx, ny: ly, scale: header.lScale)
        let pAC = readChannel(nx: 3, ny: 3, scale: header.pScale * 1.25)
        let qAC = readChannel(nx: 3, ny: 3, scale: header.qScale * 1.25)
        let aAC = hasAlpha ? readChannel(nx: 5, ny: 5, scale: header.aScale) : []

        let ratio = header.aspectRatio
        let long = Double(decodedLongSide)
        // A hash no encoder writes can store 0 components on the short side; keep such an image 1 pixel thick.
        let w = max(1, roundLikeJS(ratio > 1 ? long : long * ratio))
        let h = max(1, roundLikeJS(ratio > 1 ? long / ratio : long))

        // Per-axis cosines, as the reference computes them for each pixel.
        let nx = max(lx, hasAlpha ? 5 : 3), ny = max(ly, hasAlpha ? 5 : 3)
        var fxTable = [Double](repeating: 0, count: w * nx)
        for x in 0..<w {
            for cx in 0..<nx { fxTable[x * nx + cx] = cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
        }
        var fyTable = [Double](repeating: 0, count: h * ny)
        for y in 0..<h {
            for cy in 0..<ny { fyTable[y * ny + cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
        }

        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        var i = 0
        for y in 0..<h {
            let fy = y * ny
            for x in 0..<w {
                let fx = x * nx
                var l = header.lDC, p = header.pDC, q = header.qDC, a = header.aDC

                var j = 0
                for cy in 0..<ly {
                    var cx = cy > 0 ? 0 : 1
                    let fy2 = fyTable[fy + cy] * 2
                    while cx * ly < lx * (ly - cy) {
                        l += lAC[j] * fxTable[fx + cx] * fy2
                        cx += 1
                        j += 1
                    }
                }
                j = 0
                for cy in 0..<3 {
                    let fy2 = fyTable[fy + cy] * 2
                    for cx in (cy > 0 ? 0 : 1)..<(3 - cy) {
                        let f = fxTable[fx + cx] * fy2
                        p += pAC[j] * f
                        q += qAC[j] * f
                        j += 1
                    }
                }
                if hasAlpha {
                    j = 0
                    for cy in 0..<5 {
                        let fy2 = fyTable[fy + cy] * 2
                        for cx in (cy > 0 ? 0 : 1)..<(5 - cy) {
                            a += aAC[j] * fxTable[fx + cx] * fy2
                            j += 1
                        }
                    }
                }

                let b = l - 2.0 / 3.0 * p
                let r = (3 * l - b + q) / 2
                let g = r - q
                rgba[i] = channelByte(r)
                rgba[i + 1] = channelByte(g)
                rgba[i + 2] = channelByte(b)
                rgba[i + 3] = channelByte(a)
                i += 4
            }
        }
        return PlaceholderImage(width: w, height: h, rgba: rgba)
    }

    /// The average colour a ThumbHash stores, without decoding it.
    ///
    /// - Throws: `PlaceholderError.thumbHashTooShort` for fewer than 5 bytes (6 when it has alpha).
    package static func averageColor(of hash: [UInt8]) throws -> Color {
        guard hash.count >= 5 else { throw PlaceholderError.thumbHashTooShort(needed: 5, actual: hash.count) }
        let header = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let hasAlpha = header >> 23 != 0
        guard !hasAlpha || hash.count >= 6 else {
            throw PlaceholderError.thumbHashTooShort(needed: 6, actual: hash.count)
        }
        let l = Double(header & 63) / 63
        let p = Double(header >> 6 & 63) / 31.5 - 1
        let q = Double(header >> 12 & 63) / 31.5 - 1
        let a = hasAlpha ? Double(hash[5] & 15) / 15 : 1
        let b = l - 2.0 / 3.0 * p
        let r = (3 * l - b + q) / 2
        let g = r - q
        return Color(red: clampUnit(r), green: clampUnit(g), blue: clampUnit(b), alpha: a)
    }

    /// The approximate aspect ratio (width / height) of the image a ThumbHash was made from, from its
    /// component counts: 1/7...7 for an opaque image, 1/5...5 with alpha (0 or infinity for a hash that
    /// stores 0 components, which no encoder writes).
    ///
    /// - Throws: `PlaceholderError.thumbHashTooShort` for fewer than 5 bytes.
    package static func aspectRatio(of hash: [UInt8]) throws -> Double {
        guard hash.count >= 5 else { throw PlaceholderError.thumbHashTooShort(needed: 5, actual: hash.count) }
        return aspectRatio(hash)
    }

    // MARK: Text

    /// A hash as standard base64 with padding, the way the reference implementations print it.
    package static func base64String(_ hash: [UInt8]) -> String {
        Base64.encode(hash)
    }

    /// The hash bytes of standard base64 text, padded or not.
    ///
    /// - Throws: `PlaceholderError.invalidBase64` at the first character that is not base64 there.
    package static func hash(fromBase64 text: String) throws -> [UInt8] {
        try Base64.decode(text)
    }

    // MARK: Internals

    /// `alpha / 255` for every alpha byte, and `alpha / 255 / 255`, the weight of a colour byte: the
    /// reference's divisions, looked up instead of repeated for every pixel.
    private static let alphaUnit: [Double] = (0..<256).map { Double($0) / 255 }
    private static let alphaOver255: [Double] = alphaUnit.map { $0 / 255 }

    /// What the first 5 or 6 bytes of a hash say, checked against its length.
    private struct Header {
        var lDC, pDC, qDC, lScale, pScale, qScale, aDC, aScale: Double
        var hasAlpha: Bool
        /// The luminance channel's terms across and down: the stored count on the short side, at least 3,
        /// as the encoder's channel has them.
        var lx, ly: Int
        var aspectRatio: Double
        var acStart: Int

        init(_ hash: [UInt8]) throws {
            guard hash.count >= 5 else { throw PlaceholderError.thumbHashTooShort(needed: 5, actual: hash.count) }
            let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
            let header16 = Int(hash[3]) | Int(hash[4]) << 8
            lDC = Double(header24 & 63) / 63
            pDC = Double(header24 >> 6 & 63) / 31.5 - 1
            qDC = Double(header24 >> 12 & 63) / 31.5 - 1
            lScale = Double(header24 >> 18 & 31) / 31
            hasAlpha = header24 >> 23 != 0
            pScale = Double(header16 >> 3 & 63) / 63
            qScale = Double(header16 >> 9 & 63) / 63
            let isLandscape = header16 >> 15 != 0
            let lMax = hasAlpha ? 5 : 7
            lx = max(3, isLandscape ? lMax : header16 & 7)
            ly = max(3, isLandscape ? header16 & 7 : lMax)
            acStart = hasAlpha ? 6 : 5
            let acCount = Self.acCount(nx: lx, ny: ly) + 5 + 5 + (hasAlpha ? 14 : 0)
            let needed = acStart + (acCount + 1) / 2
            guard hash.count >= needed else {
                throw PlaceholderError.thumbHashTooShort(needed: needed, actual: hash.count)
            }
            aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
            aScale = hasAlpha ? Double(hash[5] >> 4) / 15 : 1
            aspectRatio = ThumbHash.aspectRatio(hash)
        }

        /// The AC terms of an nx by ny channel: those below the diagonal, without the DC term.
        static func acCount(nx: Int, ny: Int) -> Int {
            var count = 0
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    count += 1
                    cx += 1
                }
            }
            return count
        }
    }

    /// The reference's aspect ratio from the raw component count (not clamped to 3); `hash` has 5 bytes.
    private static func aspectRatio(_ hash: [UInt8]) -> Double {
        let hasAlpha = hash[2] & 0x80 != 0
        let isLandscape = hash[4] & 0x80 != 0
        let lMax = hasAlpha ? 5 : 7
        let lMin = Int(hash[3] & 7)
        let lx = isLandscape ? lMax : lMin
        let ly = isLandscape ? lMin : lMax
        return Double(lx) / Double(ly)
    }

    /// JavaScript's `Math.round`: the nearest integer, ties towards +infinity (Swift's `.toNearestOrAwayFromZero`
    /// differs for negative ties, Python's `round` for every even tie). Non-finite values give 0.
    static func roundLikeJS(_ x: Double) -> Int {
        guard x.isFinite, abs(x) < 1e15 else { return 0 }
        let floor = x.rounded(.down)
        return Int(x - floor >= 0.5 ? floor + 1 : floor)
    }

    /// `roundLikeJS` kept to a bit field's range, so a value that strays can never spill into the next field.
    private static func quantize(_ x: Double, max: Int) -> Int {
        min(max, Swift.max(0, roundLikeJS(x)))
    }

    private static func clampUnit(_ x: Double) -> Double {
        x > 0 ? min(1, x) : 0
    }

    /// A channel value as the reference stores it into a `Uint8Array`: clamped to 0...255, then truncated.
    private static func channelByte(_ v: Double) -> UInt8 {
        let scaled = 255 * min(1, v)
        return scaled > 0 ? UInt8(scaled) : 0
    }
}
