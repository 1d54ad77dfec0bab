import TroveCore

/// The image sizes an AVIF file declares in its `ispe` properties (meta → iprp → ipco → ispe), read from the
/// container's boxes alone. libavif refuses a file over its own size gate without saying the size; reading
/// it here lets the decoder give the usual "too large" error, naming the size and the limit.
enum AVIFDeclaredSize {
    /// The largest declared width × height, or nil when the boxes cannot be walked to an `ispe`.
    static func largest(in bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard let meta = ISOBMFFBoxes.firstChild("meta", in: bytes, within: 0..<bytes.count), meta.count >= 4,
            // meta is a full box: version and flags come before its children.
            let iprp = ISOBMFFBoxes.firstChild("iprp", in: bytes, within: (meta.lowerBound + 4)..<meta.upperBound),
            let ipco = ISOBMFFBoxes.firstChild("ipco", in: bytes, within: iprp)
        else { return nil }
        var largest: (width: Int, height: Int)?
        for (type, body) in ISOBMFFBoxes.children(in: bytes, within: ipco) where type == "ispe" && body.count >= 12 {
            // A full box too: version and flags, then width and height.
            let width = ISOBMFFBoxes.bigEndian32(bytes, at: body.lowerBound + 4)
            let height = ISOBMFFBoxes.bigEndian32(bytes, at: body.lowerBound + 8)
            // Each side is below 2^32, so the area fits in a UInt64 (not in an Int: 0xFFFFFFFF squared is over
            // Int.max, which trapped).
            if largest.map({ area(width, height) > area($0.width, $0.height) }) ?? true { largest = (width, height) }
        }
        return largest
    }

    /// `width * height` of two 32-bit sides, exactly.
    private static func area(_ width: Int, _ height: Int) -> UInt64 {
        UInt64(width) * UInt64(height)
    }
}
