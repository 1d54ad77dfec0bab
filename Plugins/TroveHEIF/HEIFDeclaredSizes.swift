import TroveCore

/// The sizes a HEIC file makes libheif and libde265 allocate before anything is decoded, read from the
/// container's boxes alone, so they can be checked against `DecodingLimits` first. The container's `ispe` size
/// (what `HEIFDecoder` checks) does not bound them: a derived image (`grid`, `iovl`) is drawn on a canvas of the
/// size its own data gives, and libde265 allocates every HEVC picture at the size its sequence parameter set
/// (SPS, in the `hvcC` property or in the item's own data) gives. libheif 1.15 checks only each side of a canvas
/// against its per-side limit, and nothing against an SPS: a 2 KB file whose `iovl` said 20609x49284 took 7 GB
/// and 35 s to be refused, one whose SPS said 20000x20000 took 1.8 GB (found by the request fuzzers).
///
/// The walk reads `meta`'s `pitm`, `iinf`, `iloc`, `idat`, `iref` and `iprp` (`ipco`, `ipma`); a file whose boxes
/// it cannot follow yields nothing, and libheif refuses such a file itself.
enum HEIFDeclaredSizes {
    /// `Declared.what` for an HEVC picture's size.
    static let hevcPicture = "HEVC picture"

    /// A size the file declares for something libheif would allocate.
    struct Declared: Equatable {
        /// The item it belongs to.
        var item: UInt32
        /// What declares it: "grid canvas", "overlay canvas" or "HEVC picture".
        var what: String
        var width: Int
        var height: Int
    }

    /// The sizes allocated to decode the primary image (`thumbnails` false) or its thumbnails (true): the
    /// items reached from them through derivation (`dimg`) and auxiliary images (`auxl`: alpha, depth).
    static func declared(in bytes: UnsafeRawBufferPointer, thumbnails: Bool = false) -> [Declared] {
        guard let file = Container(bytes) else { return [] }
        let roots = thumbnails ? file.references("thmb", to: file.primary) : [file.primary]
        var reached = Set<UInt32>()
        var pending = roots
        while let item = pending.popLast() {
            guard reached.insert(item).inserted else { continue }
            pending += file.references("dimg", from: item)
            pending += file.references("auxl", to: item)
        }
        return reached.sorted().flatMap { file.sizes(of: $0) }
    }

    /// `reported` (libheif's size for `item`) turned a quarter when libheif 1.15 left it unturned: the item's
    /// 'irot' turns it an odd number of quarters but `reported` is still its 'ispe' size. libheif reads 'ispe'
    /// after applying a rotation associated before it (Canon's HIF files list 'irot' first), so it reports the
    /// stored size while it decodes the turned picture.
    static func displayedSize(_ reported: PixelSize, item: UInt32, in bytes: UnsafeRawBufferPointer) -> PixelSize {
        guard reported.width != reported.height, let file = Container(bytes), file.isQuarterTurned(item),
            file.storedSize(of: item) == reported
        else { return reported }
        return PixelSize(width: reported.height, height: reported.width)
    }

    /// The boxes of `meta` the walk needs, parsed.
    private struct Container {
        let bytes: UnsafeRawBufferPointer
        var primary: UInt32 = 0
        var types: [UInt32: String] = [:]
        var locations: [UInt32: [Range<Int>]] = [:]
        /// Item references by type: (from, to) pairs.
        var references: [String: [(from: UInt32, to: UInt32)]] = [:]
        /// The `ipco` properties (1-based in `ipma`) and each item's property indexes.
        var properties: [(type: String, body: Range<Int>)] = []
        var associations: [UInt32: [Int]] = [:]

        init?(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            // meta is a full box: version and flags come before its children.
            guard let meta = ISOBMFFBoxes.firstChild("meta", in: bytes, within: 0..<bytes.count), meta.count >= 4
            else { return nil }
            let boxes = ISOBMFFBoxes.children(in: bytes, within: (meta.lowerBound + 4)..<meta.upperBound)
            func body(_ type: String) -> Range<Int>? { boxes.first { $0.type == type }?.body }
            guard let pitm = body("pitm"), let iinf = body("iinf"), let iloc = body("iloc") else { return nil }
            guard let primary = try? HEIFItemBoxes.primaryItem(bytes, pitm: pitm) else { return nil }
            self.primary = primary
            guard readItemTypes(iinf), readLocations(iloc, idat: body("idat")) else { return nil }
            if let iref = body("iref") { readReferences(iref) }
            if let iprp = body("iprp"), let ipco = ISOBMFFBoxes.firstChild("ipco", in: bytes, within: iprp) {
                properties = ISOBMFFBoxes.children(in: bytes, within: ipco)
                if let ipma = ISOBMFFBoxes.firstChild("ipma", in: bytes, within: iprp) { readAssociations(ipma) }
            }
        }

        /// `iinf`: each `infe` (version 2 or 3) gives an item's id and type.
        private mutating func readItemTypes(_ iinf: Range<Int>) -> Bool {
            var reader = BoxReader(bytes, iinf)
            guard let version = reader.int(1), reader.skip(3), reader.skip(version == 0 ? 2 : 4) else { return false }
            for (type, infe) in ISOBMFFBoxes.children(in: bytes, within: reader.rest) where type == "infe" {
                var entry = BoxReader(bytes, infe)
                guard let version = entry.int(1), version >= 2, entry.skip(3),
                    let id = entry.int(version == 2 ? 2 : 4), entry.skip(2), let itemType = entry.fourCC()
                else { continue }
                types[UInt32(truncatingIfNeeded: id)] = itemType
            }
            return true
        }

        /// `iloc`: each item's extents, in the file (construction method 0) or in `idat` (1).
        private mutating func readLocations(_ iloc: Range<Int>, idat: Range<Int>?) -> Bool {
            var reader = BoxReader(bytes, iloc)
            guard let version = reader.int(1), version <= 2, reader.skip(3), let sizes = reader.int(1),
                let moreSizes = reader.int(1), let count = reader.int(version < 2 ? 2 : 4)
            else { return false }
            let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseSize = moreSizes >> 4
            let indexSize = version == 0 ? 0 : moreSizes & 15
            for _ in 0..<count {
                guard let id = reader.int(version < 2 ? 2 : 4) else { return false }
                var method = 0
                if version > 0 {
                    guard let value = reader.int(2) else { return false }
                    method = value & 15
                }
                guard reader.skip(2), let base = reader.int(baseSize), let extentCount = reader.int(2) else {
                    return false
                }
                var extents: [Range<Int>] = []
                for _ in 0..<extentCount {
                    guard reader.skip(indexSize), let offset = reader.int(offsetSize),
                        let length = reader.int(lengthSize)
                    else { return false }
                    let within = method == 1 ? idat : (method == 0 ? 0..<bytes.count : nil)
                    guard let within else { continue }
                    let start = within.lowerBound + base + offset
                    // Length 0 is the rest of the data; a range past the end is libheif's to refuse.
                    let end = length == 0 ? within.upperBound : start + length
                    if start >= within.lowerBound, start <= end, end <= within.upperBound {
                        extents.append(start..<end)
                    }
                }
                locations[UInt32(truncatingIfNeeded: id)] = extents
            }
            return true
        }

        /// `iref`: typed references from one item to others.
        private mutating func readReferences(_ iref: Range<Int>) {
            var reader = BoxReader(bytes, iref)
            guard let version = reader.int(1), reader.skip(3) else { return }
            let idSize = version == 0 ? 2 : 4
            for (type, box) in ISOBMFFBoxes.children(in: bytes, within: reader.rest) {
                var entry = BoxReader(bytes, box)
                guard let from = entry.int(idSize), let count = entry.int(2) else { continue }
                for _ in 0..<count {
                    guard let to = entry.int(idSize) else { break }
                    references[type, default: []].append(
                        (UInt32(truncatingIfNeeded: from), UInt32(truncatingIfNeeded: to)))
                }
            }
        }

        /// `ipma`: each item's properties, as 1-based indexes into `ipco`.
        private mutating func readAssociations(_ ipma: Range<Int>) {
            var reader = BoxReader(bytes, ipma)
            guard let version = reader.int(1), let flags = reader.int(3), let count = reader.int(4) else { return }
            for _ in 0..<count {
                guard let id = reader.int(version < 1 ? 2 : 4), let associationCount = reader.int(1) else { return }
                var indexes: [Int] = []
                for _ in 0..<associationCount {
                    // The top bit says "essential"; the rest is the index.
                    guard let value = reader.int(flags & 1 == 1 ? 2 : 1) else { return }
                    indexes.append(value & (flags & 1 == 1 ? 0x7FFF : 0x7F))
                }
                associations[UInt32(truncatingIfNeeded: id), default: []] += indexes
            }
        }

        /// The bodies of the properties of `type` associated with `item`, in association order.
        private func properties(_ type: String, of item: UInt32) -> [Range<Int>] {
            (associations[item] ?? []).compactMap { index in
                index >= 1 && index <= properties.count && properties[index - 1].type == type
                    ? properties[index - 1].body : nil
            }
        }

        /// Whether the item's 'irot' turns it by 90 or 270 degrees.
        func isQuarterTurned(_ item: UInt32) -> Bool {
            guard let irot = properties("irot", of: item).first else { return false }
            var reader = BoxReader(bytes, irot)
            guard let angle = reader.int(1) else { return false }
            return angle & 1 == 1
        }

        /// The item's 'ispe' size (a full box: version and flags, then 32-bit width and height).
        func storedSize(of item: UInt32) -> PixelSize? {
            guard let ispe = properties("ispe", of: item).first else { return nil }
            var reader = BoxReader(bytes, ispe)
            guard reader.skip(4), let width = reader.int(4), let height = reader.int(4) else { return nil }
            return PixelSize(width: width, height: height)
        }

        /// The items `item` refers to with `type`.
        func references(_ type: String, from item: UInt32) -> [UInt32] {
            references[type, default: []].filter { $0.from == item }.map(\.to)
        }

        /// The items that refer to `item` with `type`.
        func references(_ type: String, to item: UInt32) -> [UInt32] {
            references[type, default: []].filter { $0.to == item }.map(\.from)
        }

        /// The item's data: its extents, joined.
        private func data(of item: UInt32) -> [UInt8] {
            (locations[item] ?? []).flatMap { bytes[$0] }
        }

        /// What `item` makes libheif allocate: a derived image's canvas, or every SPS an HEVC item brings.
        func sizes(of item: UInt32) -> [Declared] {
            switch types[item] {
            case "grid", "iovl":
                // Both: version, flags (bit 0: 32-bit sizes), then a grid's row and column counts or an overlay's
                // four 16-bit fill values, then the output width and height.
                let overlay = types[item] == "iovl"
                let data = data(of: item)
                guard data.count >= 2 else { return [] }
                let field = data[1] & 1 == 1 ? 4 : 2
                let at = overlay ? 10 : 4
                guard data.count >= at + 2 * field else { return [] }
                let number = { (start: Int) in data[start..<start + field].reduce(0) { $0 << 8 | Int($1) } }
                return [
                    Declared(
                        item: item, what: overlay ? "overlay canvas" : "grid canvas", width: number(at),
                        height: number(at + field))
                ]
            case "hvc1":
                guard let hvcC = properties("hvcC", of: item).first else { return [] }
                return HEVCParameterSets.pictureSizes(hvcC: Array(bytes[hvcC]), data: data(of: item)).map {
                    Declared(item: item, what: HEIFDeclaredSizes.hevcPicture, width: $0.width, height: $0.height)
                }
            default:
                return []
            }
        }
    }
}

/// The picture sizes HEVC sequence parameter sets declare (`pic_width_in_luma_samples` and
/// `pic_height_in_luma_samples`, the size libde265 allocates), from an `hvcC` configuration and an item's
/// length-prefixed NAL units.
enum HEVCParameterSets {
    /// Every SPS size in `hvcC`'s NAL arrays and in `data` (NAL units prefixed by `hvcC`'s length size).
    static func pictureSizes(hvcC: [UInt8], data: [UInt8]) -> [PixelSize] {
        guard hvcC.count >= 23 else { return [] }
        var sizes: [PixelSize] = []
        var at = 23
        for _ in 0..<Int(hvcC[22]) {
            guard at + 3 <= hvcC.count else { break }
            let count = Int(hvcC[at + 1]) << 8 | Int(hvcC[at + 2])
            at += 3
            for _ in 0..<count {
                guard at + 2 <= hvcC.count else { break }
                let length = Int(hvcC[at]) << 8 | Int(hvcC[at + 1])
                guard at + 2 + length <= hvcC.count else { break }
                if let size = pictureSize(nal: hvcC[(at + 2)..<(at + 2 + length)]) { sizes.append(size) }
                at += 2 + length
            }
        }
        let lengthSize = Int(hvcC[21] & 3) + 1
        at = 0
        while at + lengthSize <= data.count {
            let length = data[at..<at + lengthSize].reduce(0) { $0 << 8 | Int($1) }
            at += lengthSize
            guard length <= data.count - at else { break }
            if let size = pictureSize(nal: data[at..<at + length]) { sizes.append(size) }
            at += length
        }
        return sizes
    }

    /// The picture size of an SPS NAL unit (type 33); nil for another type or one cut short.
    static func pictureSize(nal: ArraySlice<UInt8>) -> PixelSize? {
        guard nal.count > 2, (nal[nal.startIndex] >> 1) & 0x3F == 33 else { return nil }
        // Emulation prevention: 00 00 03 stands for 00 00.
        var payload: [UInt8] = []
        payload.reserveCapacity(nal.count)
        var zeros = 0
        for byte in nal.dropFirst(2) {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            payload.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        var bits = BitReader(payload)
        // sps_video_parameter_set_id, sps_max_sub_layers_minus1, sps_temporal_id_nesting_flag.
        guard bits.skip(4), let subLayers = bits.read(3), bits.skip(1) else { return nil }
        // profile_tier_level: 88 bits of general profile, 8 of general level, then per sub-layer flags and
        // (when present) its own 88 and 8.
        guard bits.skip(96) else { return nil }
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<subLayers {
            guard let profile = bits.read(1), let level = bits.read(1) else { return nil }
            profilePresent.append(profile == 1)
            levelPresent.append(level == 1)
        }
        if subLayers > 0, !bits.skip(2 * (8 - subLayers)) { return nil }
        for layer in 0..<subLayers {
            if profilePresent[layer], !bits.skip(88) { return nil }
            if levelPresent[layer], !bits.skip(8) { return nil }
        }
        // sps_seq_parameter_set_id, chroma_format_idc (3: separate_colour_plane_flag), then the size.
        guard bits.exponentialGolomb() != nil, let chroma = bits.exponentialGolomb() else { return nil }
        if chroma == 3, !bits.skip(1) { return nil }
        guard let width = bits.exponentialGolomb(), let height = bits.exponentialGolomb() else { return nil }
        return PixelSize(width: width, height: height)
    }
}

/// Bits of a NAL payload, most significant first; nil past the end.
private struct BitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) -> Int? {
        guard count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) -> Bool {
        guard position + count <= bytes.count * 8 else { return false }
        position += count
        return true
    }

    /// An unsigned exponential-Golomb code, ue(v); nil when it runs past the end or over 32 bits.
    mutating func exponentialGolomb() -> Int? {
        var zeros = 0
        while true {
            guard let bit = read(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros <= 32 else { return nil }
        }
        guard let rest = read(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }
}
