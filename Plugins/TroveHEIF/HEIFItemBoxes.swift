import TroveCore

/// The item tables of a HEIF 'meta' box that `HEIFOrientationProperties` reads and rewrites: the primary item
/// ('pitm'), item references ('iref'), property associations ('ipma') and item locations ('iloc').
enum HEIFItemBoxes {
    /// The primary item's id.
    static func primaryItem(_ bytes: UnsafeRawBufferPointer, pitm: Range<Int>) throws -> UInt32 {
        var reader = BoxReader(bytes, pitm)
        guard let version = reader.int(1), reader.skip(3), let id = reader.int(version == 0 ? 2 : 4) else {
            throw HEIFOrientationProperties.failure("'pitm' is cut short")
        }
        return UInt32(truncatingIfNeeded: id)
    }

    /// The items that refer to `item` with a reference of `type` ('auxl': its alpha and depth images).
    static func references(
        _ type: String, to item: UInt32, in bytes: UnsafeRawBufferPointer, iref: Range<Int>
    ) -> [UInt32] {
        var reader = BoxReader(bytes, iref)
        guard let version = reader.int(1), reader.skip(3) else { return [] }
        let idSize = version == 0 ? 2 : 4
        var found: [UInt32] = []
        for (kind, box) in ISOBMFFBoxes.children(in: bytes, within: reader.rest) where kind == type {
            var entry = BoxReader(bytes, box)
            guard let from = entry.int(idSize), let count = entry.int(2) else { continue }
            for _ in 0..<count {
                guard let to = entry.int(idSize) else { break }
                if to == item { found.append(UInt32(truncatingIfNeeded: from)) }
            }
        }
        return found
    }

    /// 'ipma's body with the properties `indexes` (1-based) associated last, as essential, to each of `items`.
    /// An index over 127 needs the 16-bit form, which the whole box then takes.
    static func associating(
        _ indexes: [Int], with items: Set<UInt32>, in bytes: UnsafeRawBufferPointer, ipma: Range<Int>
    ) throws -> [UInt8] {
        let cutShort = HEIFOrientationProperties.failure("'ipma' is cut short")
        var reader = BoxReader(bytes, ipma)
        guard let version = reader.int(1), let flags = reader.int(3), let count = reader.int(4) else { throw cutShort }
        let idSize = version < 1 ? 2 : 4, wideInput = flags & 1 == 1
        // Each association as the 16-bit form has it: the essential bit on top, the index below.
        var entries: [(item: Int, associations: [Int])] = []
        var missing = items
        for _ in 0..<count {
            guard let item = reader.int(idSize), let associationCount = reader.int(1) else { throw cutShort }
            var associations: [Int] = []
            for _ in 0..<associationCount {
                guard let value = reader.int(wideInput ? 2 : 1) else { throw cutShort }
                associations.append(wideInput ? value : (value & 0x80) << 8 | value & 0x7F)
            }
            if missing.remove(UInt32(truncatingIfNeeded: item)) != nil {
                associations += indexes.map { 0x8000 | $0 }
            }
            guard associations.count <= 255, indexes.allSatisfy({ $0 <= 0x7FFF }) else {
                throw HEIFOrientationProperties.failure("item \(item) has too many properties")
            }
            entries.append((item, associations))
        }
        guard missing.isEmpty else {
            throw HEIFOrientationProperties.failure("items \(missing.sorted()) have no properties in 'ipma'")
        }
        let wide = wideInput || entries.contains { $0.associations.contains { $0 & 0x7FFF > 0x7F } }
        var body = [UInt8(version)] + bigEndian(flags | (wide ? 1 : 0), size: 3) + bigEndian(count, size: 4)
        for entry in entries {
            body += bigEndian(entry.item, size: idSize) + [UInt8(entry.associations.count)]
            for association in entry.associations {
                body += wide ? bigEndian(association, size: 2) : [UInt8(association >> 8 & 0x80 | association & 0x7F)]
            }
        }
        return body
    }

    /// 'iloc's body with every extent of this file's data at or after `start` moved on by `growth`: libheif
    /// gives file offsets, into the 'mdat' after 'meta', and 'meta' grew by `growth` bytes before `start`.
    static func moving(
        _ bytes: UnsafeRawBufferPointer, iloc: Range<Int>, by growth: Int, from start: Int
    ) throws -> [UInt8] {
        let cutShort = HEIFOrientationProperties.failure("'iloc' is cut short")
        var body = Array(bytes[iloc])
        func write(_ value: Int, size: Int, at position: Int) throws {
            guard size == 8 || value < 1 << (8 * size) else {
                throw HEIFOrientationProperties.failure("an item's offset no longer fits 'iloc'")
            }
            body.replaceSubrange(
                (position - iloc.lowerBound)..<(position - iloc.lowerBound + size), with: bigEndian(value, size: size))
        }
        var reader = BoxReader(bytes, iloc)
        guard let version = reader.int(1), version <= 2, reader.skip(3), let sizes = reader.int(1),
            let moreSizes = reader.int(1), let count = reader.int(version < 2 ? 2 : 4)
        else { throw cutShort }
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseSize = moreSizes >> 4
        let indexSize = version == 0 ? 0 : moreSizes & 15
        for _ in 0..<count {
            guard reader.skip(version < 2 ? 2 : 4) else { throw cutShort }
            var method = 0
            if version > 0 {
                guard let value = reader.int(2) else { throw cutShort }
                method = value & 15
            }
            let basePosition = reader.rest.lowerBound + 2
            guard let reference = reader.int(2), let base = reader.int(baseSize), let extentCount = reader.int(2) else {
                throw cutShort
            }
            var extents: [(position: Int, offset: Int)] = []
            for _ in 0..<extentCount {
                guard reader.skip(indexSize) else { throw cutShort }
                let position = reader.rest.lowerBound
                guard let offset = reader.int(offsetSize), reader.skip(lengthSize) else { throw cutShort }
                extents.append((position, offset))
            }
            // Only construction method 0 with data reference 0 points into this file ('idat' moves with 'meta').
            guard method == 0, reference == 0 else { continue }
            let moved = extents.filter { base + $0.offset >= start }
            if moved.isEmpty { continue }
            if offsetSize > 0 {
                for extent in moved { try write(extent.offset + growth, size: offsetSize, at: extent.position) }
            } else if baseSize > 0, moved.count == extents.count {
                try write(base + growth, size: baseSize, at: basePosition)
            } else {
                throw HEIFOrientationProperties.failure("'iloc' has no field to move an item's data by")
            }
        }
        return body
    }

    /// `value`'s low `size` bytes, most significant first.
    private static func bigEndian(_ value: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
    }
}
