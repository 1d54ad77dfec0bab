import TroveCore

extension PNGDecoder {
    /// The reduced image whole: the rows of `streamRows`, gathered.
    static func decodeReduced(
        _ bytes: UnsafeRawBufferPointer, file: PNGFileLayout, shift: Int, color: PNGColorPlan
    ) throws -> Image {
        let width = PNGBoxReducer.reducedLength(file.header.width, shift: shift)
        let height = PNGBoxReducer.reducedLength(file.header.height, shift: shift)
        let rowBytes = width * 4
        let pixels = try [UInt8](unsafeUninitializedCapacity: width * height * 4) { output, initialized in
            guard let outBase = output.baseAddress else { return }
            var y = 0
            try streamRows(bytes, file: file, shift: shift, color: color) { row in
                (outBase + y * rowBytes).update(from: row, count: rowBytes)
                y += 1
            }
            initialized = output.count
        }
        return Image(
            width: width, height: height, pixelFormat: .rgba8, bytesPerRow: rowBytes, pixels: pixels,
            sourceFormat: .png, orientation: orientation(in: bytes), colorDescription: color.description)
    }

    /// Unfilters and expands one row at a time and hands `deliver` each RGBA8 row of the image reduced by
    /// 2^shift (box-averaged; as stored when `shift` is 0), top to bottom, from a buffer reused for every row:
    /// the scanlines (`PNGScanlines`: inflated at once up to `wholeInflateLimit`, else two) and two RGBA rows
    /// are all that is allocated. Non-interlaced files only. Colours are as `color` says.
    static func streamRows(
        _ bytes: UnsafeRawBufferPointer, file: PNGFileLayout, shift: Int, color: PNGColorPlan,
        deliver: (UnsafePointer<UInt8>) throws -> Void
    ) throws {
        let header = file.header
        precondition(!header.interlaced, "Adam7 passes do not arrive as whole rows")
        let width = header.width, height = header.height
        let rowBytes = header.rowBytes(pixels: width)
        let scanlines = try PNGScanlines(bytes, ranges: file.imageData, rowBytes: rowBytes, height: height)
        let expander = PNGRowExpander(
            header: header,
            palette: file.palette.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) },
            transparency: file.transparency.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) },
            wideTransform: color.wideTransform)
        let hasAlpha = header.colorType == .rgba || header.colorType == .grayAlpha || file.transparency != nil
        let reducer =
            shift > 0 ? PNGBoxReducer(width: width, height: height, shift: shift, weighsByAlpha: hasAlpha) : nil
        // 8-bit RGBA, and RGB without a transparent key, are summed straight from the scanline: expanding
        // them first would only copy bytes.
        let direct = header.bitDepth == 8 && (header.colorType == .rgba || (header.colorType == .rgb && !hasAlpha))

        let rgba = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 4)
        defer { rgba.deallocate() }
        var previous: UnsafePointer<UInt8>?
        for y in 0..<height {
            let current = try scanlines.next()
            guard
                PNGFilter.unfilter(
                    current[0], row: current + 1, previous: previous, count: rowBytes,
                    distance: header.filterDistance)
            else {
                throw failure("invalid filter type \(current[0]) in row \(y)")
            }
            if let reducer, direct {
                if let row = reducer.add(current + 1, bytesPerPixel: header.colorType.channels) { try deliver(row) }
            } else {
                expander.expand(current + 1, count: width, into: UnsafeMutableRawPointer(rgba), step: 4)
                if let reducer {
                    if let row = reducer.add(rgba) { try deliver(row) }
                } else {
                    try deliver(rgba)
                }
            }
            previous = UnsafePointer(current + 1)
        }
        // As in a whole decode, a corrupt end of the stream is an error; a missing one or data past the rows is not.
        try scanlines.finish()
    }
}
