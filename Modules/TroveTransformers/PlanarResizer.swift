import TroveCore

/// A resize fed planes by a planar decoder (`PlaneRowSink`): the luma plane is resampled to the output size
/// and each chroma plane to half of it each way (4:2:0, what JPEG's encoder writes by default), each from its
/// own resolution. Samples are centre-sited, as JFIF places them: a plane's sample i covers image pixels
/// [i * span, (i + 1) * span), so a region of the image is the same region of every plane, divided by the
/// plane's span. Rows stream: only a window of filtered rows per plane is held, never a decoded plane. For
/// a turned source (an EXIF orientation) the resize is planned on the displayed size, carried out on the
/// stored planes with the region and output turned back, and the small planes are turned upright.
package final class PlanarResizer: PlaneRowSink {
    private let resize: any PlanarResize
    private let storedSize: PixelSize
    /// What turns the stored planes upright.
    private let turn: Transposition
    /// Whether chroma is resampled to the full output size and then averaged over 2x2 blocks, as libjpeg's
    /// encoder downsamples RGBA input. Otherwise (the default) chroma delivered at the luma's resolution is
    /// halved first (`PlaneHalver`) and every chroma plane resampled straight to the half-sized grid: a
    /// quarter of the work, as close to the RGBA path (`PlanarPathTests`). An output with a side under
    /// `smallSide` is always averaged, and so is one with an odd side that ends inside the image (a crop) or
    /// that the turn mirrors (see `averaging`).
    let averagesChroma: Bool
    /// Whether the result is wanted as RGBA (`rgbaResult`) rather than planes: chroma is then resampled to the
    /// full output size and kept there, for a source whose colours are converted as RGBA at the output's size.
    /// Read by `begin`: set it before.
    package var givesRGBA = false
    /// Below this many pixels on a side the half-sized grid's kernel, twice as wide, spans so much of the
    /// image that its chroma strays from libjpeg's average of full-sized samples: from the RGBA path's, a 5x3
    /// thumbnail at 43 dB and 77x51 ones at 45.4-47.4, where 45 is the bar (averaged: 48.7-49.2); from 128
    /// on 46.4-48.3, odd sides or even, the last sample of an odd one reaching a pixel past the image's edge
    /// where libjpeg repeats the edge. Averaging costs little at such sizes.
    static let smallSide = 128
    /// Whether this resize averages its chroma after resampling: when asked, for a small output, for a
    /// crop to an odd side, or for an odd side the turn mirrors (half-sized samples would then straddle the
    /// upright image's pairs of pixels).
    private(set) var averaging = false
    private var resamplers: [PlaneResampler] = []
    /// For each plane, the halver its rows go through first, if any.
    private var halvers: [PlaneHalver?] = []
    /// Whether `begin` has planned the planes (a flag, not the header: `consume` checks it for every row).
    private var began = false

    /// A sink for `resize` of an image stored at `storedSize`, delivered at that size or reduced, and
    /// displayed in `orientation`: the result is the resize of the upright image.
    package init(
        resize: any PlanarResize, storedSize: PixelSize, orientation: ExifOrientation = .up,
        averagesChroma: Bool = false
    ) {
        self.resize = resize
        self.storedSize = storedSize
        self.turn = Transposition(undoing: orientation)
        self.averagesChroma = averagesChroma
    }

    /// Plans each plane's resample from the resize's geometry on the delivered size; throws when the resize
    /// has none there, or the planes are not three.
    package func begin(_ header: PlanarStreamHeader) throws {
        guard !began else { throw Self.misuse("begin was called twice") }
        let delivered = PixelSize(width: header.width, height: header.height)
        guard header.planes.count == 3, header.width > 0, header.height > 0,
            let shown = resize.planarGeometry(
                storedSize: turn.outputSize(of: storedSize), deliveredSize: turn.outputSize(of: delivered),
                reversed: turn.reversesOutputAxes),
            shown.isValid
        else { throw Self.misuse("a \(header.width)x\(header.height) image in \(header.planes.count) planes") }
        let geometry = turn.storedGeometry(of: shown, deliveredSize: delivered)
        try DecodingLimits.default.check(width: geometry.outputWidth, height: geometry.outputHeight)
        // Output pixels per source pixel of the region, each way.
        let scaleX = geometry.width / Double(geometry.outputWidth)
        let scaleY = geometry.height / Double(geometry.outputHeight)
        let luma = (width: geometry.outputWidth, height: geometry.outputHeight, span: 1.0)
        // An odd side's last half-sized sample reaches a pixel past the region: past the image's edge its
        // taps are dropped, but short of it (a crop) it would blend in what the crop left out.
        let cropsAcross = geometry.x + geometry.width < Double(header.width) - 0.5
        let cropsDown = geometry.y + geometry.height < Double(header.height) - 0.5
        averaging =
            givesRGBA || averagesChroma || min(geometry.outputWidth, geometry.outputHeight) < Self.smallSide
            || (geometry.outputWidth % 2 == 1 && (cropsAcross || turn.mirrorsX))
            || (geometry.outputHeight % 2 == 1 && (cropsDown || turn.mirrorsY))
        let chroma =
            averaging
            ? luma : (width: (geometry.outputWidth + 1) / 2, height: (geometry.outputHeight + 1) / 2, span: 2.0)
        let outputs = [luma, chroma, chroma]
        var halvers: [PlaneHalver?] = []
        resamplers = try zip(header.planes, outputs).enumerated().map { index, pair in
            let (delivered, output) = pair
            guard delivered.spanX > 0, delivered.spanY > 0, delivered.spanX.isFinite, delivered.spanY.isFinite else {
                throw Self.misuse("a plane's samples span \(delivered.spanX)x\(delivered.spanY) pixels")
            }
            // Chroma finer than the grid it is resampled to is halved first, where that makes it 4:2:0.
            let across = index > 0 && output.span == 2 && delivered.spanX == 1
            let down = index > 0 && output.span == 2 && delivered.spanY == 1
            var plane = delivered
            if across { (plane.width, plane.spanX) = ((plane.width + 1) / 2, 2) }
            if down { (plane.height, plane.spanY) = ((plane.height + 1) / 2, 2) }
            // Output sample j covers output pixels [j * span, (j + 1) * span): the region's pixels
            // [x + j * span * scale, ...), which are the plane's samples divided by its span.
            let resampler = try PlaneResampler(
                inputWidth: plane.width, inputHeight: plane.height,
                boxX: geometry.x / plane.spanX, boxY: geometry.y / plane.spanY,
                boxWidth: Double(output.width) * output.span * scaleX / plane.spanX,
                boxHeight: Double(output.height) * output.span * scaleY / plane.spanY,
                outputWidth: output.width, outputHeight: output.height, filter: geometry.filter)
            halvers.append(
                across || down
                    ? PlaneHalver(
                        into: resampler, width: delivered.width, height: delivered.height, across: across, down: down)
                    : nil)
            return resampler
        }
        self.halvers = halvers
        began = true
    }

    package func consume(plane: Int, row: UnsafePointer<UInt8>) throws {
        guard began, resamplers.indices.contains(plane) else {
            throw Self.misuse("a row of plane \(plane) came before begin")
        }
        if let halver = halvers[plane] {
            try halver.consume(row)
        } else {
            try resamplers[plane].consume(row)
        }
    }

    /// The resized planes, upright, once every row of every plane has arrived.
    package func result() throws -> YCbCrPlanes {
        let upright = try uprightSize()
        // Averaged chroma is turned at full size and then averaged, so its pairs are the upright image's.
        func chroma(_ plane: Int) throws -> [UInt8] {
            averaging
                ? try Self.averaged(turned(plane), width: upright.width, height: upright.height) : turned(plane)
        }
        guard
            let planes = YCbCrPlanes(
                width: upright.width, height: upright.height, y: turned(0), cb: try chroma(1), cr: try chroma(2))
        else { throw Self.misuse("the planes' sizes do not agree") }
        return planes
    }

    /// The resized planes, upright, as an RGBA image from chroma at the output's full size (no averaging or
    /// upsampling), once every row of every plane has arrived; only when `givesRGBA` was set.
    package func rgbaResult(sourceFormat: ImageFormat) throws -> Image {
        guard givesRGBA else { throw Self.misuse("RGBA was asked for after planes were planned") }
        let upright = try uprightSize()
        guard
            let image = YCbCrPlanes.rgbaImage(
                width: upright.width, height: upright.height, y: turned(0), cb: turned(1), cr: turned(2),
                sourceFormat: sourceFormat)
        else { throw Self.misuse("the planes' sizes do not agree") }
        return image
    }

    /// The output's size upright, once every row of every plane has arrived.
    private func uprightSize() throws -> PixelSize {
        guard began, resamplers.count == 3,
            resamplers.allSatisfy({ $0.isComplete && $0.rowsConsumed == $0.inputHeight })
        else { throw Self.misuse("the decoder stopped before the planes' last rows") }
        return turn.outputSize(of: PixelSize(width: resamplers[0].outputWidth, height: resamplers[0].outputHeight))
    }

    /// A resampled plane, turned upright.
    private func turned(_ plane: Int) -> [UInt8] {
        let resampler = resamplers[plane]
        return turn.apply(toPlane: resampler.output, width: resampler.outputWidth, height: resampler.outputHeight)
    }

    /// A full-sized plane averaged over 2x2 blocks as libjpeg-turbo's h2v2 downsampler does (`PlaneHalver`:
    /// the last column and row repeated to even sizes, a bias of 1 and 2 in turn across each row).
    static func averaged(_ plane: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let halfWidth = (width + 1) / 2
        var output: [UInt8] = []
        output.reserveCapacity(halfWidth * ((height + 1) / 2))
        let halver = PlaneHalver(width: width, height: height, across: true, down: true) { row in
            output.append(contentsOf: UnsafeBufferPointer(start: row, count: halfWidth))
        }
        try plane.withUnsafeBufferPointer { plane in
            guard let base = plane.baseAddress, plane.count >= width * height else { return }
            for y in 0..<height { try halver.consume(base + y * width) }
        }
        return output
    }

    private static func misuse(_ reason: String) -> TroveError {
        TroveError.invalidConfiguration("planar resize: \(reason)")
    }
}
