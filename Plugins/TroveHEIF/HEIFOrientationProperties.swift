import TroveCore

/// Writes a kept EXIF orientation into a HEIF file libheif wrote without one: 'irot' and 'imir' properties,
/// essential, associated after the item's own (so after 'ispe', which keeps the stored size), on the primary
/// image and on its auxiliary images (alpha), which libheif turns separately before joining them.
///
/// libheif 1.15's `heif_encoding_options.image_orientation` is not used: it writes 'ispe' with the turned size
/// and associates 'irot' before 'ispe'. libheif 1.15 then reads 'ispe' back without turning it, so its own
/// round trip comes out right, but newer libheif (1.23, pillow-heif's) checks the decoded picture against
/// 'ispe' and refuses the file ("Decoded image does not have the size signaled in the file").
enum HEIFOrientationProperties {
    /// 'irot' (quarter turns anti-clockwise) and 'imir' (axis 0 swaps top and bottom, 1 left and right) that
    /// show stored pixels as `orientation` says; HEIF applies the rotation first, then the mirror.
    static func transforms(for orientation: ExifOrientation) -> (rotation: UInt8?, mirror: UInt8?) {
        switch orientation {
        case .up: (nil, nil)
        case .upMirrored: (nil, 1)
        case .down: (2, nil)
        case .downMirrored: (nil, 0)
        case .leftMirrored: (1, 0)
        case .right: (3, nil)
        case .rightMirrored: (3, 0)
        case .left: (1, nil)
        }
    }

    /// `file` with `orientation`'s 'irot'/'imir' added; `file` itself for `.up`. Throws when the boxes are not
    /// as libheif lays them out (one 'meta' with 'pitm', 'iloc' and 'iprp', item data after it within reach of
    /// 'iloc's fields), so a half-edited file is never returned.
    static func adding(_ orientation: ExifOrientation, to file: [UInt8]) throws -> [UInt8] {
        let (rotation, mirror) = transforms(for: orientation)
        let added = (rotation.map { box("irot", [$0]) } ?? []) + (mirror.map { box("imir", [$0]) } ?? [])
        let addedCount = (rotation == nil ? 0 : 1) + (mirror == nil ? 0 : 1)
        guard addedCount > 0 else { return file }
        return try file.withUnsafeBytes { bytes in
            let meta = try Self.meta(in: bytes)
            let children = try boxes(in: bytes, within: (meta.body.lowerBound + 4)..<meta.body.upperBound)
            func child(_ type: String) throws -> (type: String, box: Range<Int>, body: Range<Int>) {
                guard let found = children.first(where: { $0.type == type }) else {
                    throw failure("'meta' has no '\(type)' box")
                }
                return found
            }
            let primary = try HEIFItemBoxes.primaryItem(bytes, pitm: try child("pitm").body)
            let auxiliaries = children.first { $0.type == "iref" }.map {
                HEIFItemBoxes.references("auxl", to: primary, in: bytes, iref: $0.body)
            }
            let iprp = try child("iprp")
            let properties = try boxes(in: bytes, within: iprp.body)
            guard let ipco = properties.first(where: { $0.type == "ipco" }),
                let ipma = properties.first(where: { $0.type == "ipma" })
            else { throw failure("'iprp' lacks 'ipco' or 'ipma'") }
            // The new properties go at the end of 'ipco'; 'ipma' numbers properties from 1.
            let first = try boxes(in: bytes, within: ipco.body).count + 1
            let indexes = Array(first..<first + addedCount)
            var newIPRP: [UInt8] = []
            for property in properties {
                switch property.type {
                case "ipco": newIPRP += box("ipco", Array(bytes[ipco.body]) + added)
                case "ipma":
                    let items = Set([primary] + (auxiliaries ?? []))
                    let body = try HEIFItemBoxes.associating(indexes, with: items, in: bytes, ipma: ipma.body)
                    newIPRP += box("ipma", body)
                default: newIPRP += Array(bytes[property.box])
                }
            }
            newIPRP = box("iprp", newIPRP)
            // What follows 'iprp' (libheif's 'mdat', after 'meta') moves on by what 'iprp' grew.
            let growth = newIPRP.count - iprp.box.count
            var body = Array(bytes[meta.body.lowerBound..<meta.body.lowerBound + 4])
            for child in children {
                switch child.type {
                case "iprp": body += newIPRP
                case "iloc":
                    // Same length: its header is kept as it was.
                    body += Array(bytes[child.box.lowerBound..<child.body.lowerBound])
                    body += try HEIFItemBoxes.moving(bytes, iloc: child.body, by: growth, from: iprp.box.upperBound)
                default: body += Array(bytes[child.box])
                }
            }
            return Array(bytes[..<meta.box.lowerBound]) + box("meta", body) + Array(bytes[meta.box.upperBound...])
        }
    }

    static func failure(_ reason: String) -> TroveError {
        HEIFEncoder.failure("writing the kept orientation: \(reason)")
    }

    /// The top-level 'meta' box, which must have libheif's 8-byte header (its size is rewritten as 32 bits).
    private static func meta(in bytes: UnsafeRawBufferPointer) throws -> (box: Range<Int>, body: Range<Int>) {
        guard let meta = try boxes(in: bytes, within: 0..<bytes.count).first(where: { $0.type == "meta" }),
            meta.body.lowerBound - meta.box.lowerBound == 8, meta.body.count >= 4
        else { throw failure("the file has no 'meta' box with a 32-bit size") }
        return (meta.box, meta.body)
    }

    /// `ISOBMFFBoxes.children` with each box's whole range too (the boxes are contiguous), so a box that is
    /// not edited is copied with its header as it was; throws unless they fill `range`, so none is dropped.
    private static func boxes(
        in bytes: UnsafeRawBufferPointer, within range: Range<Int>
    ) throws -> [(type: String, box: Range<Int>, body: Range<Int>)] {
        var start = range.lowerBound
        let found = ISOBMFFBoxes.children(in: bytes, within: range).map { child in
            defer { start = child.body.upperBound }
            return (type: child.type, box: start..<child.body.upperBound, body: child.body)
        }
        guard start == range.upperBound else { throw failure("a box does not fit where it is") }
        return found
    }

    /// A box with a 32-bit size.
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = body.count + 8
        return (0..<4).map { UInt8(truncatingIfNeeded: size >> (24 - 8 * $0)) } + Array(type.utf8) + body
    }
}
