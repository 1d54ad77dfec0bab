import Trove
import TroveCore
import TroveTransformers

extension ImgproxyResize: RowStreamingResize {
    /// Whether `makeRowSink(storedSize:)` applies to an image stored at `source` size: a resampling filter
    /// (not nearest) that shrinks the kept region on one axis at least and enlarges it on neither. A result
    /// over `maxResultDimension` is left to `transform`, so its 422 comes from the transforms, as a refused
    /// result, and not from the decode, which a pipeline takes for bytes that are no image.
    package func streamsRows(from source: PixelSize) -> Bool {
        guard filter != .nearest, source.width > 0, source.height > 0 else { return false }
        let plan = plan(for: source)
        guard !plan.needsWholeSource else { return false }
        guard plan.scaledWidth <= plan.maxDimension, plan.scaledHeight <= plan.maxDimension else { return false }
        return plan.scaledWidth <= plan.region.width && plan.scaledHeight <= plan.region.height
            && (plan.scaledWidth < plan.region.width || plan.scaledHeight < plan.region.height)
    }

    /// A sink that keeps the crop region of each row as it arrives, resamples it through `ResizeTransformer`'s
    /// row sink and cuts the result by gravity: the pixels of `transform` on the decoded image (or of the
    /// reduced-source resize on a reduced copy). Throws the 422 `transform` throws for a result over
    /// `maxResultDimension`, before anything is decoded.
    package func makeRowSink(storedSize: PixelSize) throws -> any ResizingRowSink {
        let plan = plan(for: storedSize)
        try plan.checkResultSize()
        return ImgproxyRowSink(plan: plan, storedSize: storedSize, filter: filter, turn: .identity)
    }

    /// A sink for the stored rows of an image displayed in `orientation`: planned on the displayed size, the
    /// region read from the stored rows, resampled, turned upright and then cut.
    package func makeRowSink(storedSize: PixelSize, orientation: ExifOrientation) throws -> (any ResizingRowSink)? {
        let turn = Transposition(undoing: orientation)
        let plan = plan(for: turn.outputSize(of: storedSize))
        guard !plan.needsWholeSource else { return nil }
        try plan.checkResultSize()
        return ImgproxyRowSink(plan: plan, storedSize: storedSize, filter: filter, turn: turn)
    }
}

/// The rows of an imgproxy resize: only the crop region's part of each row goes on, into a streaming
/// resize of that region (or, when the region needs no resampling, into a copy of it); the cut by gravity
/// is made on the small result. The plan is scaled to the rows' size once the decoder says what it is. For
/// a turned image the plan is the displayed image's: the rows are stored ones, so the region is read where
/// `turn` puts it, resampled to the turned-back size, and the small result is turned upright before the cut.
final class ImgproxyRowSink: ResizingRowSink {
    private let plan: ImgproxyResizePlan
    private let storedSize: PixelSize
    private let filter: ResizeTransformer.Filter
    private let turn: Transposition
    /// The plan for the rows as delivered (in displayed coordinates), once `begin` has been told their size.
    private var deliveredPlan: ImgproxyResizePlan?
    /// The plan's region in the delivered rows.
    private var area = PixelRect(x: 0, y: 0, width: 0, height: 0)
    private var rowsExpected = 0
    private var nextRow = 0
    private var region: any ResizingRowSink = RegionRows()

    init(plan: ImgproxyResizePlan, storedSize: PixelSize, filter: ResizeTransformer.Filter, turn: Transposition) {
        self.plan = plan
        self.storedSize = storedSize
        self.filter = filter
        self.turn = turn
    }

    func begin(_ header: RowStreamHeader) throws {
        guard deliveredPlan == nil else { throw Self.misuse("begin was called twice") }
        let delivered = PixelSize(width: header.width, height: header.height)
        let plan =
            delivered == storedSize
            ? self.plan
            : self.plan.scaled(
                from: turn.outputSize(of: storedSize), to: turn.outputSize(of: delivered),
                reversed: turn.reversesOutputAxes)
        let shown = plan.region
        let stored = turn.sourceRegion(
            x: Double(shown.x), y: Double(shown.y), width: Double(shown.width), height: Double(shown.height),
            sourceSize: delivered)
        area = PixelRect(x: Int(stored.x), y: Int(stored.y), width: Int(stored.width), height: Int(stored.height))
        let scaled = turn.outputSize(of: PixelSize(width: plan.scaledWidth, height: plan.scaledHeight))
        if scaled.width != area.width || scaled.height != area.height {
            region = try ResizeTransformer(
                width: scaled.width, height: scaled.height, mode: .stretch, filter: filter, upscale: true
            ).makeRowSink(storedSize: PixelSize(width: area.width, height: area.height))
        }
        var regionHeader = header
        regionHeader.width = area.width
        regionHeader.height = area.height
        try region.begin(regionHeader)
        deliveredPlan = plan
        rowsExpected = header.height
    }

    func consume(_ row: UnsafePointer<UInt8>) throws {
        guard deliveredPlan != nil else { throw Self.misuse("a row came before begin") }
        guard nextRow < rowsExpected else { throw Self.misuse("more rows than the header's \(rowsExpected)") }
        let y = nextRow
        nextRow += 1
        guard y >= area.y, y < area.y + area.height else { return }
        try region.consume(row + area.x * 4)
    }

    func result() throws -> Image {
        guard let plan = deliveredPlan, nextRow == rowsExpected else {
            throw Self.misuse("the decoder stopped after \(nextRow) rows")
        }
        let resampled = try region.result()
        return try plan.cut(turn == .identity ? resampled : turn.apply(to: resampled, orientation: .up))
    }

    private static func misuse(_ reason: String) -> TroveError {
        TroveError.invalidConfiguration("streaming imgproxy resize: \(reason)")
    }
}

/// A region that needs no resampling: its rows, kept as they come.
private final class RegionRows: ResizingRowSink {
    private var header: RowStreamHeader?
    private var pixels: [UInt8] = []

    func begin(_ header: RowStreamHeader) throws {
        self.header = header
        pixels.reserveCapacity(header.width * header.height * 4)
    }

    func consume(_ row: UnsafePointer<UInt8>) throws {
        guard let header else { return }
        pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: header.width * 4))
    }

    func result() throws -> Image {
        guard let header, pixels.count == header.width * header.height * 4 else {
            throw TroveError.invalidConfiguration("streaming imgproxy resize: the region's rows did not all come")
        }
        return Image(
            width: header.width, height: header.height, pixelFormat: .rgba8, pixels: pixels,
            sourceFormat: header.sourceFormat, orientation: header.orientation)
    }
}
