import TroveCore

/// What a PNG's colour chunks say (iCCP, sRGB, gAMA, cHRM), gathered as the chunks are walked. Damaged colour
/// chunks are ignored, as a viewer ignores them: they never fail a decode.
struct PNGColorChunks {
    static let iccp: UInt32 = 0x6943_4350
    static let srgb: UInt32 = 0x7352_4742
    static let gama: UInt32 = 0x6741_4D41
    static let chrm: UInt32 = 0x6348_524D
    /// The largest inflated profile kept; real profiles are a few kilobytes to a few hundred.
    static let maxProfileBytes = 8 << 20

    private(set) var description = ColorDescription()

    /// Reads `chunk` when it is one of the colour chunks; returns whether it was.
    mutating func read(_ chunk: PNGChunk, in bytes: UnsafeRawBufferPointer) -> Bool {
        let data = UnsafeRawBufferPointer(rebasing: bytes[chunk.data])
        func number(at offset: Int) -> Double {
            Double(data.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian) / 100_000
        }
        switch chunk.type {
        case Self.iccp:
            // A profile name (1-79 bytes), NUL, compression method 0, then the zlib stream.
            if let nul = data.prefix(80).firstIndex(of: 0), nul + 2 < data.count, data[nul + 1] == 0 {
                let stream = (chunk.data.lowerBound + nul + 2)..<chunk.data.upperBound
                description.iccProfile = ZlibInflater.inflated(bytes, range: stream, limit: Self.maxProfileBytes)
            }
        case Self.srgb:
            description.isSRGB = data.count == 1
        case Self.gama:
            if data.count == 4, number(at: 0) > 0 { description.gamma = number(at: 0) }
        case Self.chrm:
            if data.count == 32 {
                description.chromaticities = ColorDescription.Chromaticities(
                    whiteX: number(at: 0), whiteY: number(at: 4), redX: number(at: 8), redY: number(at: 12),
                    greenX: number(at: 16), greenY: number(at: 20), blueX: number(at: 24), blueY: number(at: 28))
            }
        default:
            return false
        }
        return true
    }

    /// The description, or nil when the chunks said nothing.
    var result: ColorDescription? { description.isEmpty ? nil : description }
}
