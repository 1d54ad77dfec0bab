import TroveCore

/// Turns unfiltered scanlines of any PNG color type and bit depth into straight-alpha RGBA8 pixels.
struct PNGRowExpander {
    let header: PNGHeader
    /// RGBA (bytes r, g, b, a in memory) for every sample value of a palette or gray image of up to 8 bits,
    /// so those images expand with one table look-up per pixel. Indices past the palette give opaque black.
    private let lookup: [UInt32]
    /// The tRNS color key of a gray or RGB image, at the image's bit depth (see `init`).
    private let transparentKey: (Int, Int, Int)?
    /// For 16-bit samples: the conversion to sRGB that takes them before they are rounded (`PNGColorPlan`).
    private let wideTransform: (any ColorTransform)?

    /// `palette` and `transparency` are the PLTE and tRNS chunk data, when present.
    init(
        header: PNGHeader, palette: UnsafeRawBufferPointer?, transparency: UnsafeRawBufferPointer?,
        wideTransform: (any ColorTransform)? = nil
    ) {
        self.header = header
        self.wideTransform = header.bitDepth == 16 ? wideTransform : nil
        var key: (Int, Int, Int)?
        if let t = transparency {
            // A key sample past the bit depth keeps only its low bits, as libpng (and so browsers) reads it: a
            // 1-bit image keyed 0x00FF has its white pixels transparent.
            let depthMask = (1 << header.bitDepth) - 1
            func sample(_ i: Int) -> Int {
                Int(t.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self).bigEndian) & depthMask
            }
            if header.colorType == .gray && t.count >= 2 {
                key = (sample(0), sample(0), sample(0))
            } else if header.colorType == .rgb && t.count >= 6 {
                key = (sample(0), sample(1), sample(2))
            }
        }
        transparentKey = key

        var table = [UInt32](repeating: Self.pack(0, 0, 0, 255), count: 256)
        if header.colorType == .palette, let palette {
            for i in 0..<min(palette.count / 3, 256) {
                let alpha = transparency.flatMap { i < $0.count ? $0[i] : nil } ?? 255
                table[i] = Self.pack(palette[3 * i], palette[3 * i + 1], palette[3 * i + 2], alpha)
            }
        } else if header.colorType == .gray && header.bitDepth <= 8 {
            let maxSample = (1 << header.bitDepth) - 1
            for s in 0...maxSample {
                let g = UInt8(s * 255 / maxSample)
                table[s] = Self.pack(g, g, g, key?.0 == s ? 0 : 255)
            }
        }
        lookup = table
    }

    @inline(__always)
    private static func pack(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8) -> UInt32 {
        UInt32(littleEndian: UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | UInt32(a) << 24)
    }

    /// 16-bit to 8-bit, rounding to nearest.
    @inline(__always)
    private static func to8(_ v: Int) -> UInt8 { UInt8(truncatingIfNeeded: (v * 255 + 32767) / 65535) }

    /// Expands `count` pixels of the scanline `row` to RGBA at `output`, writing one pixel every `step` bytes
    /// (4 for a whole row; more for an Adam7 pass, whose pixels are spread out).
    func expand(_ row: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutableRawPointer, step: Int) {
        if let wideTransform { return expandConverting(row, count: count, into: output, step: step, wideTransform) }
        @inline(__always) func u16(_ i: Int) -> Int { Int(row[2 * i]) << 8 | Int(row[2 * i + 1]) }
        @inline(__always) func put(_ i: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8) {
            output.storeBytes(of: Self.pack(r, g, b, a), toByteOffset: i * step, as: UInt32.self)
        }
        let key = transparentKey
        switch (header.colorType, header.bitDepth) {
        case (.palette, _), (.gray, 1...8):
            lookup.withUnsafeBufferPointer { table in
                let depth = header.bitDepth
                if depth == 8 {
                    for i in 0..<count {
                        output.storeBytes(of: table[Int(row[i])], toByteOffset: i * step, as: UInt32.self)
                    }
                    return
                }
                let mask = (1 << depth) - 1
                for i in 0..<count {
                    let bit = i * depth
                    let sample = Int(row[bit >> 3]) >> (8 - depth - (bit & 7)) & mask
                    output.storeBytes(of: table[sample], toByteOffset: i * step, as: UInt32.self)
                }
            }
        case (.gray, _):
            for i in 0..<count {
                let v = u16(i), g = Self.to8(v)
                put(i, g, g, g, key?.0 == v ? 0 : 255)
            }
        case (.grayAlpha, 8):
            for i in 0..<count { put(i, row[2 * i], row[2 * i], row[2 * i], row[2 * i + 1]) }
        case (.grayAlpha, _):
            for i in 0..<count {
                let g = Self.to8(u16(2 * i))
                put(i, g, g, g, Self.to8(u16(2 * i + 1)))
            }
        case (.rgb, 8):
            for i in 0..<count {
                let r = row[3 * i], g = row[3 * i + 1], b = row[3 * i + 2]
                let clear = key.map { $0.0 == Int(r) && $0.1 == Int(g) && $0.2 == Int(b) } ?? false
                put(i, r, g, b, clear ? 0 : 255)
            }
        case (.rgb, _):
            for i in 0..<count {
                let r = u16(3 * i), g = u16(3 * i + 1), b = u16(3 * i + 2)
                let clear = key.map { $0.0 == r && $0.1 == g && $0.2 == b } ?? false
                put(i, Self.to8(r), Self.to8(g), Self.to8(b), clear ? 0 : 255)
            }
        case (.rgba, 8):
            Self.place(UnsafeRawPointer(row), count: count, into: output, step: step)
        case (.rgba, _):
            for i in 0..<count {
                put(
                    i, Self.to8(u16(4 * i)), Self.to8(u16(4 * i + 1)), Self.to8(u16(4 * i + 2)),
                    Self.to8(u16(4 * i + 3)))
            }
        }
    }

    /// A 16-bit row made RGBA16 (big-endian, as stored), converted to sRGB RGBA8 by `transform`, then placed.
    private func expandConverting(
        _ row: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutableRawPointer, step: Int,
        _ transform: any ColorTransform
    ) {
        let key = transparentKey
        let channels = header.colorType.channels
        // Gray is repeated in R, G and B.
        let green = channels >= 3 ? 2 : 0, blue = channels >= 3 ? 4 : 0
        guard count > 0 else { return }
        // A heap buffer: `withUnsafeTemporaryAllocation` here was miscompiled in release builds (Swift 6.3),
        // trapping on its own loop range for rows over 1 KiB.
        let wide = UnsafeMutablePointer<UInt8>.allocate(capacity: count * 8)
        defer { wide.deallocate() }
        for i in 0..<count {
            let sample = row + 2 * channels * i, pixel = wide + 8 * i
            @inline(__always) func value(_ channel: Int) -> Int {
                Int(sample[2 * channel]) << 8 | Int(sample[2 * channel + 1])
            }
            (pixel[0], pixel[1]) = (sample[0], sample[1])
            (pixel[2], pixel[3]) = (sample[green], sample[green + 1])
            (pixel[4], pixel[5]) = (sample[blue], sample[blue + 1])
            let alpha: Int
            switch header.colorType {
            case .grayAlpha: alpha = value(1)
            case .rgba: alpha = value(3)
            case .gray: alpha = key?.0 == value(0) ? 0 : 0xFFFF
            default:
                let clear = key.map { $0.0 == value(0) && $0.1 == value(1) && $0.2 == value(2) } ?? false
                alpha = clear ? 0 : 0xFFFF
            }
            pixel[6] = UInt8(alpha >> 8)
            pixel[7] = UInt8(alpha & 0xFF)
        }
        transform.apply(wide, count: count)
        Self.place(UnsafeRawPointer(wide), count: count, into: output, step: step)
    }

    /// Copies `count` RGBA8 pixels from `source` to `output`, one every `step` bytes.
    private static func place(
        _ source: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, step: Int
    ) {
        guard step != 4 else { return output.copyMemory(from: source, byteCount: count * 4) }
        for i in 0..<count {
            output.storeBytes(
                of: source.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self), toByteOffset: i * step,
                as: UInt32.self)
        }
    }
}
