import TroveCore

/// A resize fed by a decoder row by row (`ImageRowSink`): each row gets the horizontal pass as it arrives,
/// the window keeps only the filtered rows the vertical filter still needs, and each output row is written
/// as soon as its source rows are in. It runs `Resampler`'s own weight tables and row passes, so its pixels
/// equal a two-pass resize of the whole decoded image.
final class StreamingResizer: ResizingRowSink {
    /// The resize planned on the full stored size; nil when the size would not change.
    private let storedPlan: ResizePlan?
    private let filter: ResizeTransformer.Filter
    private let storedSize: PixelSize
    private var header: RowStreamHeader?
    private var resampler: Resampler?
    private var window: RowWindow?
    private var output: [UInt8] = []
    private var nextSourceRow = 0
    private var nextOutputRow = 0

    /// A sink for `resize` applied to an image stored at `storedSize`; the decoder may deliver a reduced copy,
    /// which is resized from the same region to the same output (as `forReducedSource` plans it).
    convenience init(resize: ResizeTransformer, storedSize: PixelSize) {
        self.init(
            plan: resize.plan(sourceWidth: storedSize.width, sourceHeight: storedSize.height), storedSize: storedSize,
            filter: resize.filter)
    }

    /// A sink that carries out `plan`, made on the full `storedSize`, with `filter`.
    init(plan: ResizePlan?, storedSize: PixelSize, filter: ResizeTransformer.Filter) {
        storedPlan = plan
        self.storedSize = storedSize
        self.filter = filter
    }

    /// Filtered rows the window holds: the most source rows kept at once (0 before `begin`).
    var windowRows: Int { window?.capacity ?? 0 }

    func begin(_ header: RowStreamHeader) throws {
        guard self.header == nil else { throw Self.misuse("begin was called twice") }
        guard let stored = storedPlan, header.width > 0, header.height > 0
        else { throw Self.misuse("a \(header.width)x\(header.height) stream has nothing to resize") }
        let reduced = PixelSize(width: header.width, height: header.height)
        let plan = stored.scaled(from: storedSize, to: reduced)
        try DecodingLimits.default.check(width: plan.outputWidth, height: plan.outputHeight)
        let resampler = try Resampler(
            sourceWidth: reduced.width, sourceHeight: reduced.height, plan: plan, filter: filter)
        self.header = header
        self.resampler = resampler
        window = resampler.makeWindow()
        output = [UInt8](repeating: 0, count: plan.outputWidth * plan.outputHeight * 4)
    }

    func consume(_ row: UnsafePointer<UInt8>) throws {
        guard let header, let resampler, let window else { throw Self.misuse("a row came before begin") }
        guard nextSourceRow < header.height else { throw Self.misuse("more rows than the header's \(header.height)") }
        let y = nextSourceRow
        nextSourceRow += 1
        let outputHeight = resampler.plan.outputHeight
        guard nextOutputRow < outputHeight, y >= resampler.lowestSourceRow(neededFrom: nextOutputRow) else { return }
        resampler.filterRow(row, row: y, in: window)
        let rowBytes = resampler.plan.outputWidth * 4
        output.withUnsafeMutableBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            while nextOutputRow < outputHeight, resampler.sourceRows(forOutputRow: nextOutputRow).upperBound <= y + 1 {
                resampler.emitRow(nextOutputRow, from: window, into: base + nextOutputRow * rowBytes)
                nextOutputRow += 1
            }
        }
    }

    /// The resized image, once every row has arrived.
    func result() throws -> Image {
        guard let header, let resampler, nextSourceRow == header.height, nextOutputRow == resampler.plan.outputHeight
        else { throw Self.misuse("the decoder stopped after \(nextSourceRow) rows") }
        return Image(
            width: resampler.plan.outputWidth, height: resampler.plan.outputHeight, pixelFormat: .rgba8,
            pixels: output, sourceFormat: header.sourceFormat, orientation: header.orientation)
    }

    private static func misuse(_ reason: String) -> TroveError {
        TroveError.invalidConfiguration("streaming resize: \(reason)")
    }
}

extension ResizeTransformer: RowStreamingResize {
    /// Whether `makeRowSink(storedSize:)` applies to an image stored at `source` size: the resize shrinks
    /// (neither axis grows) with a filter that convolves. Nearest neighbour and plain crops keep the
    /// whole-image path.
    package func streamsRows(from source: PixelSize) -> Bool {
        guard filter != .nearest, let plan = plan(sourceWidth: source.width, sourceHeight: source.height) else {
            return false
        }
        return !plan.isPlainCrop && Double(plan.outputWidth) <= plan.box.width
            && Double(plan.outputHeight) <= plan.box.height
    }

    /// A sink that resizes the rows of an image stored at `storedSize` as they arrive, keeping only a window
    /// of filtered rows about the filter's support tall.
    package func makeRowSink(storedSize: PixelSize) throws -> any ResizingRowSink {
        StreamingResizer(resize: self, storedSize: storedSize)
    }

    /// A sink for the stored rows of an image displayed in `orientation`: the resize is planned on the displayed
    /// size, carried out on the stored rows with the region and output turned back, and the small result
    /// turned upright.
    package func makeRowSink(storedSize: PixelSize, orientation: ExifOrientation) throws -> (any ResizingRowSink)? {
        let turn = Transposition(undoing: orientation)
        let displayed = turn.outputSize(of: storedSize)
        let plan = self.plan(sourceWidth: displayed.width, sourceHeight: displayed.height)
        let stored = StreamingResizer(
            plan: plan.map { turn.sourcePlan(of: $0, sourceSize: storedSize) }, storedSize: storedSize, filter: filter)
        return orientation == .up ? stored : OrientingRowSink(stored, turn: turn)
    }
}
