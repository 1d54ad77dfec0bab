import Foundation
import TroveCore

extension PNGDecoder: RowStreamingImageDecoder {
    /// Hands the rows to `sink` as they are unfiltered, box-reduced as `decode(_:options:)` reduces them, so
    /// no image-sized buffer exists at either size. Adam7 files, whose rows come in seven passes, are decoded
    /// whole at full size first.
    package func decode(_ data: Data, options: DecodingOptions, into sink: any ImageRowSink) throws {
        try data.withUnsafeBytes { bytes in
            let file = try PNGFileLayout(bytes, limits: options.limits)
            let header = file.header
            let color = PNGColorPlan(file: file, converter: options.colorConverter)
            guard !header.interlaced else {
                let image = try Self.decodeWhole(bytes, file: file, limits: options.limits, color: color)
                try sink.begin(
                    RowStreamHeader(
                        width: image.width, height: image.height, sourceFormat: .png,
                        orientation: image.orientation, colorDescription: image.colorDescription))
                try image.pixels.withUnsafeBufferPointer { pixels in
                    guard let base = pixels.baseAddress else { return }
                    for y in 0..<image.height { try sink.consume(base + y * image.bytesPerRow) }
                }
                return
            }
            let shift =
                options.minimumSize.map {
                    Self.reductionShift(width: header.width, height: header.height, minimum: $0)
                } ?? 0
            try sink.begin(
                RowStreamHeader(
                    width: PNGBoxReducer.reducedLength(header.width, shift: shift),
                    height: PNGBoxReducer.reducedLength(header.height, shift: shift), sourceFormat: .png,
                    orientation: Self.orientation(in: bytes), colorDescription: color.description))
            try Self.streamRows(bytes, file: file, shift: shift, color: color) { try sink.consume($0) }
        }
    }
}
