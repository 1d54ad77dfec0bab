import TroveCore
import TroveTransformers

/// Rows for a chain that starts `orient, resize`: the turn is known only from the decoder's header. An
/// upright image's `orient` does nothing, so its rows go straight into the resize's sink; any other
/// orientation must be turned before it is resized, so its rows are kept as the decoded image instead.
final class UprightRowRouter: ImageRowSink {
    private let resize: any ResizingRowSink
    private var header: RowStreamHeader?
    private var pixels: [UInt8] = []
    private var upright = false

    init(resize: any ResizingRowSink) {
        self.resize = resize
    }

    func begin(_ header: RowStreamHeader) throws {
        self.header = header
        upright = header.orientation == .up
        if upright {
            try resize.begin(header)
        } else {
            pixels.reserveCapacity(header.width * header.height * 4)
        }
    }

    func consume(_ row: UnsafePointer<UInt8>) throws {
        if upright {
            try resize.consume(row)
        } else if let header {
            pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: header.width * 4))
        }
    }

    /// What came of the rows: the resized image when the source was upright, else the decoded image still
    /// to be turned and resized.
    func result() throws -> RoutedRows {
        guard let header else { return .resized(try resize.result()) }  // never begun: the resize says why
        if upright { return .resized(try resize.result()) }
        guard pixels.count == header.width * header.height * 4 else {
            throw TroveError.invalidConfiguration(
                "the decoder delivered \(pixels.count / max(header.width * 4, 1)) of \(header.height) rows")
        }
        return .decoded(
            Image(
                width: header.width, height: header.height, pixelFormat: .rgba8, pixels: pixels,
                sourceFormat: header.sourceFormat, orientation: header.orientation,
                colorDescription: header.colorDescription))
    }

    /// The two ways a routed decode ends.
    enum RoutedRows {
        /// Upright: the resize is done.
        case resized(Image)
        /// Turned: the decoded image, for the transforms as planned.
        case decoded(Image)
    }
}
