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
        (PixelSize(width: 17, height: 9), ResizeTransformer(width: 5, height: 3, mode: .stretch, filter: .bicubic)),
        // The width kept: each row goes into the ring as it is, with no horizontal pass.
        (
            PixelSize(width: 301, height: 203),
            ResizeTransformer(width: 301, height: 150, mode: .stretch, filter: .lanczos3)
        )
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
    /// the image gives the same ramp at the output's chroma positions as a full-sized one does. The output is
    /// `smallSide` each way, so without `averaging` the half grid is what is tested.
    @Test(arguments: [false, true])
    func chromaIsCentreSited(averaging: Bool) throws {
        let size = PixelSize(width: 256, height: 256)
        let side = PlanarResizer.smallSide
        let resize = ResizeTransformer(width: side, height: side, mode: .stretch, filter: .bilinear)
        // Full size: value x at pixel x's centre (x + 0.5), so centre - 0.5.
        let full: [UInt8] = (0..<(256 * 256)).map { (i: Int) -> UInt8 in UInt8(i % 256) }
        // At centre 2i + 1 that is 2i + 0.5: 2i + 1 is within the comparison's rounding.
        let half: [UInt8] = (0..<(128 * 128)).map { (i: Int) -> UInt8 in UInt8(2 * (i % 128) + 1) }
        let luma = [UInt8](repeating: 100, count: 256 * 256)
        let fullLayout = PlaneLayout(width: 256, height: 256, spanX: 1, spanY: 1)
        let halfLayout = PlaneLayout(width: 128, height: 128, spanX: 2, spanY: 2)
        let fromFull = PlanarResizer(resize: resize, storedSize: size, averagesChroma: averaging)
        try Self.deliver([luma, full, full], layouts: [fullLayout, fullLayout, fullLayout], size: size, to: fromFull)
        let fromHalf = PlanarResizer(resize: resize, storedSize: size, averagesChroma: averaging)
        try Self.deliver([luma, half, half], layouts: [fullLayout, halfLayout, halfLayout], size: size, to: fromHalf)
        let a = try fromFull.result(), b = try fromHalf.result()
        #expect(fromFull.averaging == averaging && fromHalf.averaging == averaging)
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

    /// Halving rounds as libjpeg's h2v2 downsampler (`h2v2`, and `PlanarResizer.averaged`, which halves the
    /// same way), odd last column and row repeated, and the halved plane goes through a resample at its own size (lanczos3's taps at whole
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
        #expect(resampler.output == Self.h2v2(plane, width: width, height: height))
        #expect(
            try PlanarResizer.averaged(plane, width: width, height: height)
                == Self.h2v2(plane, width: width, height: height))
    }

    /// libjpeg-turbo's h2v2 downsample written out plainly: each 2x2 block's mean, the last column and row
    /// repeated to even sizes, a bias of 1 and 2 in turn across each row.
    static func h2v2(_ plane: [UInt8], width: Int, height: Int) -> [UInt8] {
        let halfWidth = (width + 1) / 2, halfHeight = (height + 1) / 2
        var output = [UInt8](repeating: 0, count: halfWidth * halfHeight)
        for y in 0..<halfHeight {
            let top = 2 * y * width, bottom = min(2 * y + 1, height - 1) * width
            for x in 0..<halfWidth {
                let left = 2 * x, right = min(2 * x + 1, width - 1)
                let sum =
                    Int(plane[top + left]) + Int(plane[top + right]) + Int(plane[bottom + left])
                    + Int(plane[bottom + right])
                output[y * halfWidth + x] = UInt8((sum + 1 + (x & 1)) >> 2)
            }
        }
        return output
    }

    /// Chroma is resampled to the half-sized grid from `smallSide` pixels on a side, odd sides too (their last
    /// sample reaching a pixel past the image's edge, where libjpeg's encoder repeats the edge), within a few
    /// levels of chroma resampled at full size and averaged even on ramps that steepen towards that edge. A
    /// smaller output, even or odd, is averaged outright.
    @Test(arguments: [
        (600, 393, 200), (393, 600, 200), (900, 291, 399), (1001, 667, 333), (300, 200, 100), (30, 30, 5),
        (200, 131, 66)
    ])
    func smallOutputsAverageChromaAndLargerOnesHalveIt(width: Int, height: Int, box: Int) throws {
        let size = PixelSize(width: width, height: height)
        let resize = ResizeTransformer(width: box, height: box, mode: .fit, filter: .lanczos3)
        let chroma: [UInt8] = (0..<(width * height)).map { (i: Int) -> UInt8 in
            let x = Double(i % width) / Double(width), y = Double(i / width) / Double(height)
            return UInt8(20 + 150 * y * y * y * y + 80 * x * x * x * x)
        }
        let (chosen, averaged) = try Self.resized(chroma, size: size, resize: resize)
        let a = try chosen.result(), b = try averaged.result()
        try #require(a.cb.count == b.cb.count)
        let small = min(a.width, a.height) < PlanarResizer.smallSide
        #expect(chosen.averaging == small)
        var worst = 0
        for i in 0..<a.cb.count { worst = max(worst, abs(Int(a.cb[i]) - Int(b.cb[i]))) }
        #expect(worst <= (small ? 0 : 2), "\(a.width)x\(a.height): chroma differs by up to \(worst)")
    }

    /// A crop (`fill`) to an odd side averages its chroma: the half grid's last sample would reach a pixel
    /// past the crop and blend in the colour it cut away. Here the crop keeps exactly a 20 band between two 220 ones.
    @Test func anOddSideOfACropAveragesChroma() throws {
        let size = PixelSize(width: 400, height: 300)
        let chroma: [UInt8] = (0..<(400 * 300)).map { (i: Int) -> UInt8 in (49..<351).contains(i % 400) ? 20 : 220 }
        let odd = ResizeTransformer(width: 151, height: 150, mode: .fill, filter: .lanczos3)
        let (chosen, averaged) = try Self.resized(chroma, size: size, resize: odd)
        let a = try chosen.result(), b = try averaged.result()
        #expect(a.width == 151 && chosen.averaging)
        #expect(zip(a.cb, b.cb).allSatisfy { $0 == $1 })
        let lastColumn = stride(from: a.chromaWidth - 1, to: a.cb.count, by: a.chromaWidth).map { Int(a.cb[$0]) }
        #expect(lastColumn.allSatisfy { $0 < 40 }, "the crop's last chroma column: \(lastColumn.max() ?? 0)")
        // The same crop to an even width takes the half grid, which stays inside the crop.
        let even = ResizeTransformer(width: 150, height: 150, mode: .fill, filter: .lanczos3)
        let (halved, _) = try Self.resized(chroma, size: size, resize: even)
        let c = try halved.result()
        #expect(!halved.averaging)
        let evenLastColumn = stride(from: c.chromaWidth - 1, to: c.cb.count, by: c.chromaWidth).map { Int(c.cb[$0]) }
        #expect(evenLastColumn.allSatisfy { $0 < 40 })
    }

    /// `resize` of gray luma and `chroma` in both chroma planes, all at the image's size: as chosen, and averaged.
    static func resized(
        _ chroma: [UInt8], size: PixelSize, resize: ResizeTransformer
    ) throws -> (chosen: PlanarResizer, averaged: PlanarResizer) {
        let luma = [UInt8](repeating: 100, count: size.width * size.height)
        let layout = PlaneLayout(width: size.width, height: size.height, spanX: 1, spanY: 1)
        let chosen = PlanarResizer(resize: resize, storedSize: size)
        try deliver([luma, chroma, chroma], layouts: [layout, layout, layout], size: size, to: chosen)
        let averaged = PlanarResizer(resize: resize, storedSize: size, averagesChroma: true)
        try deliver([luma, chroma, chroma], layouts: [layout, layout, layout], size: size, to: averaged)
        return (chosen, averaged)
    }
}
