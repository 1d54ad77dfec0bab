import Foundation
import Trove

// A third-party format plugin, written the way an app would: it imports only `Trove`, declares its own
// `ImageFormat`, and registers a decoder and an encoder. QOI ("Quite OK Image", qoiformat.org) is small
// enough to write here; nothing in Trove knows it.

extension ImageFormat {
    /// The Quite OK Image format.
    static let qoi: ImageFormat = "qoi"
}

/// The parts of the QOI byte stream both directions share.
enum QOI {
    static let magic = Array("qoif".utf8)
    static let headerLength = 14
    static let endMarker: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]

    static let opRGB: UInt8 = 0xFE
    static let opRGBA: UInt8 = 0xFF
    static let opIndex: UInt8 = 0x00
    static let opDiff: UInt8 = 0x40
    static let opLuma: UInt8 = 0x80
    static let opRun: UInt8 = 0xC0

    /// Where a pixel goes in the 64-entry table of recently seen pixels.
    static func slot(_ p: (UInt8, UInt8, UInt8, UInt8)) -> Int {
        (Int(p.0) * 3 + Int(p.1) * 5 + Int(p.2) * 7 + Int(p.3) * 11) % 64
    }
}

/// Decodes QOI to RGBA8.
struct QOIDecoder: ImageDecoder {
    let name = "qoi"
    let format = ImageFormat.qoi

    func canDecode(_ header: Data) -> Bool { header.starts(with: QOI.magic) }

    func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        let bytes = [UInt8](data)
        guard bytes.count >= QOI.headerLength + QOI.endMarker.count, bytes.starts(with: QOI.magic) else {
            throw TroveError.decodingFailed(format: format, reason: "shorter than a QOI header")
        }
        func u32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let width = u32(4), height = u32(8)
        try limits.check(width: width, height: height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var seen = [(UInt8, UInt8, UInt8, UInt8)](repeating: (0, 0, 0, 0), count: 64)
        var p: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)
        var at = QOI.headerLength, run = 0
        let end = bytes.count - QOI.endMarker.count
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            if run > 0 {
                run -= 1
            } else {
                guard at < end else { throw TroveError.decodingFailed(format: format, reason: "pixel data ends early") }
                let tag = bytes[at]; at += 1
                if tag == QOI.opRGB || tag == QOI.opRGBA {
                    let count = tag == QOI.opRGB ? 3 : 4
                    guard at + count <= end else {
                        throw TroveError.decodingFailed(format: format, reason: "pixel data ends early")
                    }
                    p = (bytes[at], bytes[at + 1], bytes[at + 2], count == 4 ? bytes[at + 3] : p.3)
                    at += count
                } else {
                    switch tag & 0xC0 {
                    case QOI.opIndex: p = seen[Int(tag)]
                    case QOI.opDiff:
                        p.0 = p.0 &+ (tag >> 4 & 3) &- 2
                        p.1 = p.1 &+ (tag >> 2 & 3) &- 2
                        p.2 = p.2 &+ (tag & 3) &- 2
                    case QOI.opLuma:
                        guard at < end else {
                            throw TroveError.decodingFailed(format: format, reason: "pixel data ends early")
                        }
                        let dg = (tag & 0x3F) &- 32, next = bytes[at]; at += 1
                        p.0 = p.0 &+ dg &+ (next >> 4) &- 8
                        p.1 = p.1 &+ dg
                        p.2 = p.2 &+ dg &+ (next & 0x0F) &- 8
                    default: run = Int(tag & 0x3F)
                    }
                }
                seen[QOI.slot(p)] = p
            }
            pixels[offset] = p.0; pixels[offset + 1] = p.1; pixels[offset + 2] = p.2; pixels[offset + 3] = p.3
        }
        return Image(width: width, height: height, pixels: pixels, sourceFormat: format)
    }
}

/// Encodes RGBA8 (or gray, converted) as QOI with four channels.
struct QOIEncoder: ImageEncoder {
    let name = "qoi"
    let format = ImageFormat.qoi

    func encode(_ image: Image, options: EncodingOptions) throws -> Data {
        let image = image.convertedToRGBA8()
        var out = QOI.magic
        for value in [image.width, image.height] {
            out += [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        out += [4, 0]  // channels, sRGB
        var seen = [(UInt8, UInt8, UInt8, UInt8)](repeating: (0, 0, 0, 0), count: 64)
        var previous: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)
        var run: UInt8 = 0
        let px = image.pixels
        for offset in stride(from: 0, to: image.width * image.height * 4, by: 4) {
            let p = (px[offset], px[offset + 1], px[offset + 2], px[offset + 3])
            if p == previous {
                run += 1
                if run == 62 { out.append(QOI.opRun | (run - 1)); run = 0 }
                continue
            }
            if run > 0 { out.append(QOI.opRun | (run - 1)); run = 0 }
            let slot = QOI.slot(p)
            if seen[slot] == p {
                out.append(QOI.opIndex | UInt8(slot))
            } else if p.3 == previous.3 {
                let dr = Int(p.0) - Int(previous.0), dg = Int(p.1) - Int(previous.1), db = Int(p.2) - Int(previous.2)
                let (wr, wg, wb) = (
                    Int8(truncatingIfNeeded: dr), Int8(truncatingIfNeeded: dg), Int8(truncatingIfNeeded: db)
                )
                let (rg, bg) = (Int(wr) - Int(wg), Int(wb) - Int(wg))
                if (-2...1).contains(wr), (-2...1).contains(wg), (-2...1).contains(wb) {
                    out.append(QOI.opDiff | UInt8(Int(wr) + 2) << 4 | UInt8(Int(wg) + 2) << 2 | UInt8(Int(wb) + 2))
                } else if (-32...31).contains(wg), (-8...7).contains(rg), (-8...7).contains(bg) {
                    out += [QOI.opLuma | UInt8(Int(wg) + 32), UInt8(rg + 8) << 4 | UInt8(bg + 8)]
                } else {
                    out += [QOI.opRGB, p.0, p.1, p.2]
                }
            } else {
                out += [QOI.opRGBA, p.0, p.1, p.2, p.3]
            }
            seen[slot] = p
            previous = p
        }
        if run > 0 { out.append(QOI.opRun | (run - 1)) }
        return Data(out + QOI.endMarker)
    }
}

/// Registers both under one name, as a third-party package would ship them.
struct QOIPlugin: TrovePlugin {
    let name = "qoi"
    let version = "0.1.0"
    func register(into registry: inout PluginRegistry) throws {
        try registry.register(decoder: QOIDecoder())
        try registry.register(encoder: QOIEncoder())
    }
}
