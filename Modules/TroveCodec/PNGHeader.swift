import TroveCore

/// The IHDR chunk: image size and how pixels are stored.
struct PNGHeader: Equatable {
    enum ColorType: UInt8 {
        case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6

        var channels: Int {
            switch self {
            case .gray, .palette: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }

        /// Bit depths the PNG specification allows for this color type.
        var allowedBitDepths: [Int] {
            switch self {
            case .gray: [1, 2, 4, 8, 16]
            case .palette: [1, 2, 4, 8]
            case .rgb, .grayAlpha, .rgba: [8, 16]
            }
        }
    }

    static let byteCount = 13
    /// The specification caps both dimensions at 2^31 - 1.
    static let maxDimension = Int(Int32.max)

    let width: Int
    let height: Int
    let bitDepth: Int
    let colorType: ColorType
    let interlaced: Bool

    var bitsPerPixel: Int { colorType.channels * bitDepth }

    /// The distance, in bytes, between a byte and the one its filter predicts from ("bpp" in the spec).
    var filterDistance: Int { max(1, bitsPerPixel / 8) }

    /// Bytes in one scanline of `pixels` pixels, without its filter-type byte.
    func rowBytes(pixels: Int) -> Int { (pixels * bitsPerPixel + 7) / 8 }

    init(width: Int, height: Int, bitDepth: Int, colorType: ColorType, interlaced: Bool) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.interlaced = interlaced
    }

    /// Parses and validates the 13 bytes of an IHDR chunk.
    init(parsing bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count == Self.byteCount else {
            throw PNGDecoder.failure("IHDR chunk is \(bytes.count) bytes long, expected \(Self.byteCount)")
        }
        let width = Int(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self).bigEndian)
        let height = Int(bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self).bigEndian)
        let bitDepth = Int(bytes[8])
        guard (1...Self.maxDimension).contains(width), (1...Self.maxDimension).contains(height) else {
            throw PNGDecoder.failure("invalid image size \(width)x\(height) in IHDR (each side must be 1...2^31-1)")
        }
        guard let colorType = ColorType(rawValue: bytes[9]) else {
            throw PNGDecoder.failure("unsupported color type \(bytes[9]) (valid types are 0, 2, 3, 4 and 6)")
        }
        guard colorType.allowedBitDepths.contains(bitDepth) else {
            throw PNGDecoder.failure("unsupported bit depth \(bitDepth) for color type \(colorType.rawValue)")
        }
        guard bytes[10] == 0 else { throw PNGDecoder.failure("unknown compression method \(bytes[10]) in IHDR") }
        guard bytes[11] == 0 else { throw PNGDecoder.failure("unknown filter method \(bytes[11]) in IHDR") }
        guard bytes[12] <= 1 else { throw PNGDecoder.failure("unknown interlace method \(bytes[12]) in IHDR") }
        self.init(
            width: width, height: height, bitDepth: bitDepth, colorType: colorType,
            interlaced: bytes[12] == 1)
    }
}
