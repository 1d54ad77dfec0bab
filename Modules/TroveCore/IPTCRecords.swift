/// The rights datasets of IPTC-IIM (the "IPTC-NAA" record JPEG files carry in APP13, inside Photoshop's image
/// resources), read and written: 2:116 Copyright Notice, 2:80 By-line (one dataset per creator) and 2:110
/// Credit. Text is UTF-8 when 1:90 says so or when it decodes as UTF-8, else Latin-1. Anything malformed reads as
/// absent, and the walk stops there. 2:115 Source (the supplier, not the owner) and the rest are left out.
package enum IPTCRecords {
    /// IIM's (record, dataset) numbers that Trove reads and writes.
    static let codedCharacterSet = (1, 90), recordVersion = (2, 0), byline = (2, 80), credit = (2, 110),
        copyright = (2, 116)
    /// 1:90's value for UTF-8: ESC % G.
    static let utf8Marker: [UInt8] = [0x1B, 0x25, 0x47]
    /// The Photoshop image resource that holds the IIM datasets.
    static let resourceID = 0x0404
    /// The identifier JPEG's APP13 marker starts with, NUL included.
    package static let jpegIdentifier = Array("Photoshop 3.0".utf8) + [0]

    /// The notice in IIM `datasets`, nil when they have none of its fields.
    package static func notice(inDatasets datasets: [UInt8]) -> CopyrightNotice? {
        var values: [(record: Int, dataset: Int, bytes: ArraySlice<UInt8>)] = []
        var at = 0
        while at + 5 <= datasets.count, datasets[at] == 0x1C {
            var length = Int(datasets[at + 3]) << 8 | Int(datasets[at + 4])
            var start = at + 5
            if length & 0x8000 != 0 {
                // The extended form: the low 15 bits give how many bytes the length takes.
                let size = length & 0x7FFF
                guard (1...4).contains(size), start + size <= datasets.count else { break }
                length = datasets[start..<(start + size)].reduce(0) { $0 << 8 | Int($1) }
                start += size
            }
            guard length <= datasets.count - start else { break }
            values.append((Int(datasets[at + 1]), Int(datasets[at + 2]), datasets[start..<(start + length)]))
            at = start + length
        }
        let declaredUTF8 = values.contains {
            ($0.record, $0.dataset) == codedCharacterSet && $0.bytes.elementsEqual(utf8Marker)
        }
        func texts(_ tag: (Int, Int)) -> [String] {
            values.filter { ($0.record, $0.dataset) == tag }.compactMap { value in
                var bytes = value.bytes
                while bytes.last == 0 { bytes = bytes.dropLast() }
                let text =
                    declaredUTF8
                    ? String(decoding: bytes, as: UTF8.self)
                    : String(validating: bytes, as: UTF8.self)
                        ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
                return text.allSatisfy(\.isWhitespace) ? nil : text
            }
        }
        var notice = CopyrightNotice(copyright: texts(copyright).first)
        let creators = texts(byline)
        notice.artist = creators.isEmpty ? nil : creators.joined(separator: "; ")
        notice.credit = texts(credit).first
        return notice.isEmpty ? nil : notice
    }

    /// IIM datasets for `notice`'s copyright, creators and credit (UTF-8, declared by 1:90), nil when it has
    /// none of them. A value over IIM's 32,767-byte standard length is left out.
    package static func datasets(for notice: CopyrightNotice) -> [UInt8]? {
        var fields: [((Int, Int), String)] = notice.creators.map { (byline, $0) }
        if let text = notice.credit { fields.append((credit, text)) }
        if let text = notice.copyright { fields.append((copyright, text)) }
        let encoded = fields.map { ($0.0, Array(CopyrightNotice.withoutNULs($0.1).utf8)) }.filter {
            !$0.1.isEmpty && $0.1.count <= 0x7FFF
        }
        guard !encoded.isEmpty else { return nil }
        func dataset(_ tag: (Int, Int), _ value: [UInt8]) -> [UInt8] {
            [0x1C, UInt8(tag.0), UInt8(tag.1), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        // Records and datasets in ascending order, as IIM asks.
        return dataset(codedCharacterSet, utf8Marker) + dataset(recordVersion, [0, 4])
            + encoded.flatMap { dataset($0.0, $0.1) }
    }

    /// The IIM datasets in Photoshop image resources (a run of "8BIM" blocks), nil when resource 0x0404 is not
    /// among them.
    package static func datasets(inResources resources: [UInt8]) -> [UInt8]? {
        var at = 0
        while at + 12 <= resources.count, resources[at..<(at + 4)].elementsEqual("8BIM".utf8) {
            let id = Int(resources[at + 4]) << 8 | Int(resources[at + 5])
            // A Pascal-string name, padded so that length byte and name take an even count.
            let nameLength = Int(resources[at + 6])
            let sizeAt = at + 6 + ((nameLength + 2) & ~1)
            guard sizeAt + 4 <= resources.count else { return nil }
            let size = resources[sizeAt..<(sizeAt + 4)].reduce(0) { $0 << 8 | Int($1) }
            let start = sizeAt + 4
            guard size <= resources.count - start else { return nil }
            if id == resourceID { return Array(resources[start..<(start + size)]) }
            at = start + size + (size & 1)
        }
        return nil
    }

    /// `datasets` as Photoshop image resources: one "8BIM" block, resource 0x0404, no name.
    package static func resources(holding datasets: [UInt8]) -> [UInt8] {
        let size = datasets.count
        let header: [UInt8] = Array("8BIM".utf8) + [UInt8(resourceID >> 8), UInt8(resourceID & 0xFF), 0, 0]
        let length = [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        return header + length + datasets + (size % 2 == 1 ? [0] : [])
    }
}
