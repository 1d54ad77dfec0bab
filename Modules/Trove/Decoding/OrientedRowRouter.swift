import TroveCore
import TroveTransformers

/// Rows for a chain that starts `orient, resize`, streamed into a resize planned for the orientation the
/// header gave (`expected`). The decoder's own header is the last word: when it says the same, every row
/// goes straight into the resize's sink, which turns its small result upright; when it says otherwise, the
/// rows are kept as the decoded image, to be turned and resized whole.
final class OrientedRowRouter: ImageRowSink {
    private let resize: any ResizingRowSink
    private let expected: ExifOrientation
    private var header: RowStreamHeader?
    private var pixels: [UInt8] = []
    private var streams = false

    init(resize: any ResizingRowSink, expected: ExifOrientation) {
        self.resize = resize
        self.expected = expected
    }

    func begin(_ header: RowStreamHeader) throws {
        self.header = header
        streams = header.orientation == expected
        if streams {
            try resize.begin(header)
        } else {
            pixels.reserveCapacity(header.width * header.height * 4)
        }
    }

    func consume(_ row: UnsafePointer<UInt8>) throws {
        if streams {
            try resize.consume(row)
        } else if let header {
            pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: header.width * 4))
        }
    }

    /// What came of the rows: the resized, upright image when they streamed, else the decoded image still to
    /// be turned and resized.
    func result() throws -> RoutedRows {
        guard let header else { return .resized(try resize.result()) }  // never begun: the resize says why
        if streams { return .resized(try resize.result()) }
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
        /// Streamed: the orient and the resize are done.
        case resized(Image)
        /// Not as planned: the decoded image, for the transforms as planned.
        case decoded(Image)
    }
}
