import Testing
import TroveCore

@testable import TroveTransformers

/// The planar resize: each plane resampled from its own resolution to its own output grid, centre-sited, with
/// the weight tables the RGBA resize uses.
@Suite struct PlanarResizerTests {
    /// Hands three planes to the sink band by band, as a decoder would (each row from one scratch buffer).
    static func deliver(_ planes: [[UInt8]], layouts: [PlaneLayout], size: PixelSize, to sink: PlanarResizer) throws {
        try sink.begin(PlanarStreamHeader(width: size.width, height: size.height, planes: layouts, sourceFormat: .jpeg))
        var next = [0, 0, 0]
        while zip(next, layouts).contains(where: { $0 < $1.height }) {
            for plane in 0..<3 where next[plane] < layouts[plane].height {
                let width = layouts[plane].width
                let row = Array(planes[plane][(next[plane] * width)..<((next[plane] + 1) * width)])
                try row.withUnsafeBufferPointer { try sink.consume(plane: plane, row: $0.baseAddress!) }
                next[plane] += 1
            }
        }
    }

    /// A luma plane resizes to what the RGBA resize makes of the same values in gray, within rounding.
    @Test(arguments: [
        (PixelSize(width: 97, height: 61), ResizeTransformer(width: 40, height: 40, mode: .fit, filter: .bilinear)),
        (PixelSize(width: 300, height: 200), ResizeTransformer(width: 120, height: 50, mode: .fill, filter: .lanczos3)),
        (PixelSize(width: 17, height: 9), ResizeTransformer(width: 5, height: 3, mode: .stretch, filter: .bicubic))
    ])
    func lumaIsTheRGBAResizeOfGray(size: PixelSize, resize: ResizeTransformer) throws {
        let luma: [UInt8] = (0..<(size.width * size.height)).map { (i: Int) -> UInt8 in
            let x = i % size.width, y = i / size.width
            return UInt8((x * 7 + y * 3) % 256)
        }
        let gray = makeImage(width: size.width, height: size.height) { x, y in
            let v = luma[y * size.width + x]
            return [v, v, v, 255]
        }
        let expected = try resize.transform(gray)
        let chroma = [UInt8](repeating: 128, count: size.width * size.height)
        let layout = PlaneLayout(width: size.width, height: size.height, spanX: 1, spanY: 1)
        let sink = PlanarResizer(resize: resize, storedSize: size)
        try Self.deliver([luma, chroma, chroma], layouts: [layout, layout, layout], size: size, to: sink)
        let planes = try sink.result()
        #expect(planes.width == expected.width && planes.height == expected.height)
        var worst = 0
        for i in 0..<(planes.width * planes.height) {
            worst = max(worst, abs(Int(planes.y[i]) - Int(expected.pixels[4 * i])))
        }
        #expect(worst <= 1)
        #expect(planes.cb.allSatisfy { $0 == 128 } && planes.cr.allSatisfy { $0 == 128 })
        #expect(planes.cb.count == ((planes.width + 1) / 2) * ((planes.height + 1) / 2))
    }

    /// Half-sized chroma is sited at the centres of the pixels it covers: a chroma plane that is a ramp across
    /// the image gives the same ramp at the output's chroma positions as a full-sized one does.
    @Test(arguments: [false, true])
    func chromaIsCentreSited(averaging: Bool) throws {
        let size = PixelSize(width: 64, height: 32)
        let resize = ResizeTransformer(width: 32, height: 16, mode: .stretch, filter: .bilinear)
        // Full size: value = 2 * x + 40 at pixel x's centre (x + 0.5), so 2 * (centre) + 39.
        let full: [UInt8] = (0..<(64 * 32)).map { (i: Int) -> UInt8 in UInt8(2 * (i % 64) + 40) }
        // At centre 2i + 1: 2 * (2i + 1) + 39.
        let half: [UInt8] = (0..<(32 * 16)).map { (i: Int) -> UInt8 in UInt8(4 * (i % 32) + 41) }
        let luma = [UInt8](repeating: 100, count: 64 * 32)
        let fullLayout = PlaneLayout(width: 64, height: 32, spanX: 1, spanY: 1)
        let halfLayout = PlaneLayout(width: 32, height: 16, spanX: 2, spanY: 2)
        let fromFull = PlanarResizer(resize: resize, storedSize: size, averagesChroma: averaging)
        try Self.deliver([luma, full, full], layouts: [fullLayout, fullLayout, fullLayout], size: size, to: fromFull)
        let fromHalf = PlanarResizer(resize: resize, storedSize: size, averagesChroma: averaging)
        try Self.deliver([luma, half, half], layouts: [fullLayout, halfLayout, halfLayout], size: size, to: fromHalf)
        let a = try fromFull.result(), b = try fromHalf.result()
        // Away from the edges, where taps are dropped, the two agree.
        for y in 0..<a.chromaHeight {
            for x in 2..<(a.chromaWidth - 2) {
                let i = y * a.chromaWidth + x
                #expect(abs(Int(a.cb[i]) - Int(b.cb[i])) <= 1, "at \(x), \(y): \(a.cb[i]) vs \(b.cb[i])")
            }
        }
    }

    @Test func missingRowsAreAnError() throws {
        let size = PixelSize(width: 40, height: 20)
        let sink = PlanarResizer(resize: ResizeTransformer(width: 10, height: 10, mode: .fit), storedSize: size)
        let layout = PlaneLayout(width: 40, height: 20, spanX: 1, spanY: 1)
        try sink.begin(PlanarStreamHeader(width: 40, height: 20, planes: [layout, layout, layout], sourceFormat: .jpeg))
        #expect(throws: TroveError.self) { _ = try sink.result() }
        let row = [UInt8](repeating: 0, count: 40)
        #expect(throws: TroveError.self) {
            try row.withUnsafeBufferPointer { try sink.consume(plane: 3, row: $0.baseAddress!) }
        }
    }

    /// Planes that do not fit the resize (none, or a resize that does not shrink) are refused at begin.
    @Test func beginRefusesWhatItCannotResize() throws {
        let layout = PlaneLayout(width: 40, height: 20, spanX: 1, spanY: 1)
        let enlarging = PlanarResizer(
            resize: ResizeTransformer(width: 400, height: 400, mode: .fit, upscale: true),
            storedSize: PixelSize(width: 40, height: 20))
        #expect(throws: TroveError.self) {
            try enlarging.begin(
                PlanarStreamHeader(width: 40, height: 20, planes: [layout, layout, layout], sourceFormat: .jpeg))
        }
        let twoPlanes = PlanarResizer(
            resize: ResizeTransformer(width: 10, height: 10, mode: .fit), storedSize: PixelSize(width: 40, height: 20))
        #expect(throws: TroveError.self) {
            try twoPlanes.begin(
                PlanarStreamHeader(width: 40, height: 20, planes: [layout, layout], sourceFormat: .jpeg))
        }
    }

    /// Halving rounds as libjpeg's h2v2 downsampler (`PlanarResizer.averaged`), odd last column and row
    /// repeated, and the halved plane goes through a resample at its own size (lanczos3's taps at whole
    /// offsets are dropped) unchanged; and a width past the vertical pass's blocks of sixteen keeps its tail.
    @Test(arguments: [(7, 5), (2, 2), (1, 3), (37, 9), (66, 4)])
    func halverRoundsAsLibjpegDownsamples(width: Int, height: Int) throws {
        var seed: UInt32 = 7
        let plane: [UInt8] = (0..<(width * height)).map { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: seed >> 24)
        }
        let halfWidth = (width + 1) / 2, halfHeight = (height + 1) / 2
        let resampler = try PlaneResampler(
            inputWidth: halfWidth, inputHeight: halfHeight, boxX: 0, boxY: 0, boxWidth: Double(halfWidth),
            boxHeight: Double(halfHeight), outputWidth: halfWidth, outputHeight: halfHeight, filter: .lanczos3)
        let halver = PlaneHalver(into: resampler, width: width, height: height, across: true, down: true)
        for y in 0..<height {
            let row = Array(plane[(y * width)..<((y + 1) * width)])
            try row.withUnsafeBufferPointer { try halver.consume($0.baseAddress!) }
        }
        #expect(resampler.isComplete)
        #expect(resampler.output == PlanarResizer.averaged(plane, width: width, height: height))
    }

    /// On an odd side the half-sized chroma grid's last sample covers the one last pixel, as libjpeg's
    /// encoder (which repeats the edge before averaging) has it: the last chroma row and column agree within
    /// 1 with chroma resampled at full size and averaged (a last sample over two pixels, one past the edge,
    /// is 2 off here). Rows a kernel's width from the edge may differ by a few levels either way, even or
    /// odd: the half grid's kernel is twice as wide, so more of it falls past the edge. A small output is
    /// averaged outright.
    @Test(arguments: [(600, 393, 200), (393, 600, 200), (900, 291, 399), (1001, 667, 333), (30, 30, 5), (200, 131, 66)])
    func oddSidesCoverTheLastPixelAlone(width: Int, height: Int, box: Int) throws {
        let size = PixelSize(width: width, height: height)
        let resize = ResizeTransformer(width: box, height: box, mode: .fit, filter: .lanczos3)
        // Ramps that steepen towards the last row and column, where a last sample centred half a pixel off,
        // or reaching past the edge, shows.
        let chroma: [UInt8] = (0..<(width * height)).map { (i: Int) -> UInt8 in
            let x = Double(i % width) / Double(width), y = Double(i / width) / Double(height)
            return UInt8(20 + 150 * y * y * y * y + 80 * x * x * x * x)
        }
        let luma = [UInt8](repeating: 100, count: width * height)
        let layout = PlaneLayout(width: width, height: height, spanX: 1, spanY: 1)
        let halved = PlanarResizer(resize: resize, storedSize: size)
        try Self.deliver([luma, chroma, chroma], layouts: [layout, layout, layout], size: size, to: halved)
        let averaged = PlanarResizer(resize: resize, storedSize: size, averagesChroma: true)
        try Self.deliver([luma, chroma, chroma], layouts: [layout, layout, layout], size: size, to: averaged)
        let a = try halved.result(), b = try averaged.result()
        #expect(a.width % 2 == 1 || a.height % 2 == 1)
        try #require(a.cb.count == b.cb.count)
        if min(a.width, a.height) < PlanarResizer.smallSide {
            #expect(a.cb == b.cb && a.cr == b.cr)
            return
        }
        let width = a.chromaWidth, height = a.chromaHeight
        var edge: [Int] = []
        if a.height % 2 == 1 { edge += ((height - 1) * width)..<(height * width) }
        if a.width % 2 == 1 { edge += stride(from: width - 1, to: width * height, by: width) }
        var worst = 0
        for i in edge { worst = max(worst, abs(Int(a.cb[i]) - Int(b.cb[i]))) }
        #expect(worst <= 1, "\(a.width)x\(a.height): the last chroma samples differ by up to \(worst)")
    }
}
