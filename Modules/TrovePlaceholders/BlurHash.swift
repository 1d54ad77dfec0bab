#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(ucrt)
    import ucrt
#endif

/// BlurHash, Wolt's image placeholder: a few DCT components of the image in linear light, written as a short
/// base-83 string (6 to 166 characters).
///
/// The output is byte for byte that of Wolt's C implementation (as in blurhash-python): it computes in single
/// precision with `cosf` and `powf`, so this port does the same, operation by operation, including the spots
/// where C widens to double. The cosines come from per-axis tables holding the values C computes per pixel,
/// and every sum runs in C's order. Hashes can differ from ports that compute in double precision (the
/// TypeScript one) in the last digits.
///
/// BlurHash has no alpha: like the reference, the encoder reads the colour stored in each pixel and ignores
/// alpha, and decoded pixels are opaque. Composite over a background first to hash what a viewer sees.
package enum BlurHash: Sendable {
    /// The component counts a BlurHash can hold on each axis.
    package static let componentRange = 1...9

    // MARK: Encoding

    /// The BlurHash of RGBA8 pixels (alpha ignored). Any size works, but the cost grows with pixels times
    /// components: hash a thumbnail (e.g. 100 pixels on the long side), as the detail is lost anyway.
    ///
    /// - Parameters:
    ///   - rgba: The rows, top to bottom, 4 bytes per pixel.
    ///   - bytesPerRow: The stride between rows; nil for tightly packed rows (`width * 4`).
    ///   - xComponents: Horizontal components, 1...9; 4 by default.
    ///   - yComponents: Vertical components, 1...9; 3 by default.
    /// - Throws: `PlaceholderError` for component counts outside 1...9, a size below 1x1, a short stride or a
    ///   short buffer.
    package static func encode(
        rgba: [UInt8], width: Int, height: Int, bytesPerRow: Int? = nil, xComponents: Int = 4, yComponents: Int = 3
    ) throws -> String {
        try rgba.withUnsafeBytes {
            try encode(
                rgba: $0, width: width, height: height, bytesPerRow: bytesPerRow, xComponents: xComponents,
                yComponents: yComponents)
        }
    }

    /// The BlurHash of RGBA8 pixels in caller memory (alpha ignored). Any size works, but the cost grows with
    /// pixels times components: hash a thumbnail (e.g. 100 pixels on the long side).
    ///
    /// - Parameters:
    ///   - rgba: The rows, top to bottom, 4 bytes per pixel.
    ///   - bytesPerRow: The stride between rows; nil for tightly packed rows (`width * 4`).
    ///   - xComponents: Horizontal components, 1...9; 4 by default.
    ///   - yComponents: Vertical components, 1...9; 3 by default.
    /// - Throws: `PlaceholderError` for component counts outside 1...9, a size below 1x1, a short stride or a
    ///   short buffer.
    package static func encode(
        rgba: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int? = nil, xComponents: Int = 4,
        yComponents: Int = 3
    ) throws -> String {
        guard componentRange.contains(xComponents), componentRange.contains(yComponents) else {
            throw PlaceholderError.invalidComponentCount(x: xComponents, y: yComponents)
        }
        let image = try RGBAPixels(rgba, width: width, height: height, bytesPerRow: bytesPerRow)
        let factors = basisFactors(image, xComponents: xComponents, yComponents: yComponents)

        var out: [UInt8] = []
        out.reserveCapacity(4 + 2 * xComponents * yComponents)
        Base83.append((xComponents - 1) + (yComponents - 1) * 9, length: 1, to: &out)

        // The largest AC magnitude, quantised to 0...82, scales every AC term.
        let acValues = factors.dropFirst(3)
        let maximumValue: Float
        if acValues.isEmpty {
            maximumValue = 1
            Base83.append(0, length: 1, to: &out)
        } else {
            var actualMaximum: Float = 0
            for value in acValues { actualMaximum = fmaxf(fabsf(value), actualMaximum) }
            // C: float * int, then "- 0.5" in double, then back to float for floorf.
            let quantised = Int(fmaxf(0, fminf(82, floorf(Float(Double(actualMaximum * 166) - 0.5)))))
            maximumValue = (Float(quantised) + 1) / 166
            Base83.append(quantised, length: 1, to: &out)
        }

        let dc =
            BlurHashSRGB.fromLinear(factors[0]) << 16 + BlurHashSRGB.fromLinear(factors[1]) << 8
            + BlurHashSRGB.fromLinear(factors[2])
        Base83.append(dc, length: 4, to: &out)

        // Each AC term to 0...18 on a square-root scale. C: the power and "* 9" in float, "+ 9.5" in double,
        // back to float for floorf.
        func quantiseAC(_ value: Float) -> Int {
            let scaled = BlurHashSRGB.signPow(value / maximumValue, 0.5) * 9
            return Int(fmaxf(0, fminf(18, floorf(Float(Double(scaled) + 9.5)))))
        }
        var index = 3
        while index < factors.count {
            let ac =
                quantiseAC(factors[index]) * 19 * 19 + quantiseAC(factors[index + 1]) * 19
                + quantiseAC(factors[index + 2])
            Base83.append(ac, length: 2, to: &out)
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The DCT factors, red, green and blue per component, components row by row (the DC term first).
    private static func basisFactors(_ image: RGBAPixels, xComponents: Int, yComponents: Int) -> [Float] {
        let w = image.width, h = image.height
        // C computes cosf(M_PI * component * x / width) per pixel: the argument in double, the cosine in float.
        var cosX = [Float](repeating: 0, count: w * xComponents)
        for x in 0..<w {
            for i in 0..<xComponents {
                cosX[x * xComponents + i] = cosf(Float(Double.pi * Double(i) * Double(x) / Double(w)))
            }
        }
        var cosY = [Float](repeating: 0, count: h * yComponents)
        for y in 0..<h {
            for j in 0..<yComponents {
                cosY[y * yComponents + j] = cosf(Float(Double.pi * Double(j) * Double(y) / Double(h)))
            }
        }

        let components = xComponents * yComponents
        var sums = [Float](repeating: 0, count: components * 3)
        var row = [Float](repeating: 0, count: w * 3)
        let linear = BlurHashSRGB.linearTable
        let bytes = image.bytes
        sums.withUnsafeMutableBufferPointer { sums in
            row.withUnsafeMutableBufferPointer { row in
                cosX.withUnsafeBufferPointer { cosX in
                    for y in 0..<h {
                        for x in 0..<w {
                            let o = image.offset(x: x, y: y)
                            row[x * 3] = linear[Int(bytes[o])]
                            row[x * 3 + 1] = linear[Int(bytes[o + 1])]
                            row[x * 3 + 2] = linear[Int(bytes[o + 2])]
                        }
                        // Every component's sums take this row's pixels left to right, as in C, whose loops
                        // run one component at a time over the whole image.
                        for j in 0..<yComponents {
                            let cy = cosY[y * yComponents + j]
                            let first = j * xComponents * 3
                            for x in 0..<w {
                                let r = row[x * 3], g = row[x * 3 + 1], b = row[x * 3 + 2]
                                let cosines = x * xComponents
                                for i in 0..<xComponents {
                                    let basis = cosX[cosines + i] * cy
                                    let s = first + i * 3
                                    sums[s] += basis * r
                                    sums[s + 1] += basis * g
                                    sums[s + 2] += basis * b
                                }
                            }
                        }
                    }
                }
            }
        }
        let area = Float(w * h)
        for component in 0..<components {
            let scale = (component == 0 ? 1 : 2) / area
            for c in 0..<3 { sums[component * 3 + c] *= scale }
        }
        return sums
    }

    // MARK: Decoding

    /// The image a BlurHash describes, at any size: RGBA8 rows, tightly packed, alpha 255.
    ///
    /// - Parameters:
    ///   - width: Width of the output, at least 1; a placeholder is usually decoded small (e.g. 32x32) and
    ///     scaled up by the view.
    ///   - height: Height of the output, at least 1.
    ///   - punch: Contrast: the AC terms are multiplied by it; 1 shows the hash as encoded.
    /// - Throws: `PlaceholderError` for a string of the wrong length or with a character outside the base-83
    ///   alphabet, a size below 1x1, or a punch that is not finite and above 0.
    package static func decode(_ hash: String, width: Int, height: Int, punch: Double = 1) throws -> [UInt8] {
        guard width >= 1, height >= 1 else { throw PlaceholderError.invalidSize(width: width, height: height) }
        let (area, areaOverflow) = width.multipliedReportingOverflow(by: height)
        let (byteCount, bytesOverflow) = area.multipliedReportingOverflow(by: 4)
        guard !areaOverflow, !bytesOverflow else { throw PlaceholderError.invalidSize(width: width, height: height) }
        guard punch.isFinite, punch > 0 else { throw PlaceholderError.invalidPunch(punch) }

        let digits = Array(hash.utf8)
        guard digits.count >= 6 else { throw PlaceholderError.blurHashTooShort(length: digits.count) }
        let sizeFlag = try Base83.decode(digits, 0..<1)
        let numY = sizeFlag / 9 + 1, numX = sizeFlag % 9 + 1
        let expected = 4 + 2 * numX * numY
        guard digits.count == expected else {
            throw PlaceholderError.blurHashLengthMismatch(expected: expected, actual: digits.count, x: numX, y: numY)
        }

        let quantisedMaximum = try Base83.decode(digits, 1..<2)
        let maximumValue = Float(quantisedMaximum + 1) / 166 * Float(punch)
        var colors = [Float](repeating: 0, count: numX * numY * 3)
        let dc = try Base83.decode(digits, 2..<6)
        colors[0] = BlurHashSRGB.toLinear(dc >> 16)
        colors[1] = BlurHashSRGB.toLinear(dc >> 8 & 255)
        colors[2] = BlurHashSRGB.toLinear(dc & 255)
        for component in 1..<(numX * numY) {
            let value = try Base83.decode(digits, (4 + component * 2)..<(6 + component * 2))
            let quantised = [value / (19 * 19), value / 19 % 19, value % 19]
            for c in 0..<3 {
                colors[component * 3 + c] = BlurHashSRGB.signPow((Float(quantised[c]) - 9) / 9, 2) * maximumValue
            }
        }

        // C decodes with double cos(M_PI * x * i / width), the product of the two cosines rounded to float.
        var cosX = [Double](repeating: 0, count: width * numX)
        for x in 0..<width {
            for i in 0..<numX { cosX[x * numX + i] = cos(Double.pi * Double(x) * Double(i) / Double(width)) }
        }
        var cosY = [Double](repeating: 0, count: height * numY)
        for y in 0..<height {
            for j in 0..<numY { cosY[y * numY + j] = cos(Double.pi * Double(y) * Double(j) / Double(height)) }
        }

        var pixels = [UInt8](repeating: 255, count: byteCount)
        var o = 0
        for y in 0..<height {
            for x in 0..<width {
                var r: Float = 0, g: Float = 0, b: Float = 0
                for j in 0..<numY {
                    let cy = cosY[y * numY + j]
                    for i in 0..<numX {
                        let basis = Float(cosX[x * numX + i] * cy)
                        let c = (i + j * numX) * 3
                        r += colors[c] * basis
                        g += colors[c + 1] * basis
                        b += colors[c + 2] * basis
                    }
                }
                pixels[o] = UInt8(clamping: BlurHashSRGB.fromLinear(r))
                pixels[o + 1] = UInt8(clamping: BlurHashSRGB.fromLinear(g))
                pixels[o + 2] = UInt8(clamping: BlurHashSRGB.fromLinear(b))
                o += 4
            }
        }
        return pixels
    }
}
