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

    /// Inflates, unfilters and expands one row at a time and hands `deliver` each RGBA8 row of the image
    /// reduced by 2^shift (box-averaged; as stored when `shift` is 0), top to bottom, from a buffer reused for
    /// every row: only two scanlines and two RGBA rows are ever allocated. Non-interlaced files only. Colours
    /// are as `color` says.
    static func streamRows(
        _ bytes: UnsafeRawBufferPointer, file: PNGFileLayout, shift: Int, color: PNGColorPlan,
        deliver: (UnsafePointer<UInt8>) throws -> Void
    ) throws {
        let header = file.header
        precondition(!header.interlaced, "Adam7 passes do not arrive as whole rows")
        let width = header.width, height = header.height
        let rowBytes = header.rowBytes(pixels: width)
        let expected = height * (rowBytes + 1)
        guard let stream = ZlibInflateStream(bytes, ranges: file.imageData) else {
            throw failure("corrupt image data in IDAT: zlib could not start (out of memory)")
        }
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

        // Two scanlines with their filter-type bytes: the one being unfiltered and the one above it.
        let lines = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * (rowBytes + 1))
        let rgba = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 4)
        defer {
            lines.deallocate()
            rgba.deallocate()
        }
        var current = lines, spare = lines + rowBytes + 1
        var previous: UnsafePointer<UInt8>?
        for y in 0..<height {
            switch stream.read(into: UnsafeMutableRawBufferPointer(start: current, count: rowBytes + 1)) {
            case .filled:
                break
            case .ended(let produced), .truncated(let produced):
                throw failure(
                    "image data is truncated: it inflates to \(y * (rowBytes + 1) + produced) "
                        + "of \(expected) bytes")
            case .corrupt(let reason):
                throw failure("corrupt image data in IDAT: \(reason)")
            }
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
            swap(&current, &spare)
        }
        // As in a whole decode, a stream longer than the header implies is an error.
        var extra: UInt8 = 0
        let tail = withUnsafeMutableBytes(of: &extra) { stream.read(into: $0) }
        switch tail {
        case .ended(produced: 0):
            break
        case .corrupt(let reason):
            throw failure("corrupt image data in IDAT: \(reason)")
        default:
            throw failure("image data is longer than the \(expected) bytes its IHDR implies")
        }
    }
}
