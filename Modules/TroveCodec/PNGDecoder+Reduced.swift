import TroveCore

extension PNGDecoder {
    /// Inflates, unfilters and expands one row at a time, feeding each to a box reducer: only two scanlines,
    /// one RGBA row and the reduced image are ever allocated. Non-interlaced files only.
    static func decodeReduced(_ bytes: UnsafeRawBufferPointer, file: PNGFileLayout, shift: Int) throws -> Image {
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
            transparency: file.transparency.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) })
        let hasAlpha = header.colorType == .rgba || header.colorType == .grayAlpha || file.transparency != nil
        let reducer = PNGBoxReducer(width: width, height: height, shift: shift, weighsByAlpha: hasAlpha)
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
        let pixels = try [UInt8](unsafeUninitializedCapacity: reducer.outputWidth * reducer.outputHeight * 4) {
            output, initialized in
            guard let outBase = output.baseAddress else { return }
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
                if direct {
                    reducer.add(current + 1, bytesPerPixel: header.colorType.channels, into: outBase)
                } else {
                    expander.expand(current + 1, count: width, into: UnsafeMutableRawPointer(rgba), step: 4)
                    reducer.add(rgba, into: outBase)
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
            initialized = output.count
        }
        return Image(
            width: reducer.outputWidth, height: reducer.outputHeight, pixelFormat: .rgba8,
            bytesPerRow: reducer.outputWidth * 4, pixels: pixels, sourceFormat: .png)
    }
}
