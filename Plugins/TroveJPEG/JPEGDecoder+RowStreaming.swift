import CJPEGShim
import Foundation
import TroveCore

extension JPEGDecoder: RowStreamingImageDecoder {
    /// Hands each scanline to `sink` as libjpeg-turbo produces it (scaled as `decode(_:options:)` scales),
    /// from one row buffer in libjpeg's pool: no image-sized buffer is allocated. Limits apply to the stored
    /// size, as for a whole decode.
    package func decode(_ data: Data, options: DecodingOptions, into sink: any ImageRowSink) throws {
        try withDecoder(data, limits: options.limits) { decoder, header, lastError in
            let layout = try prepare(decoder, header: header, options: options, lastError: lastError)
            let cmykTransform = Self.cmykTransform(decoder, header: header, options: options)
            try sink.begin(layout)
            let relay = RowRelay(sink: sink, cmykTransform: cmykTransform, width: layout.width)
            let status = withExtendedLifetime(relay) {
                trove_jpeg_decoder_decode_rows(
                    decoder,
                    { context, row in
                        guard let context, let row else { return 1 }
                        return Unmanaged<RowRelay>.fromOpaque(context).takeUnretainedValue().relay(row)
                    }, Unmanaged.passUnretained(relay).toOpaque())
            }
            if let error = relay.error { throw error }
            guard status == 0 else { throw lastError() }
        }
    }
}

/// Carries a sink through libjpeg's C callback, keeping what the sink threw: Swift errors cannot cross C.
/// With a CMYK transform, each CMYK row is converted into a row of its own before the sink sees it.
private final class RowRelay {
    let sink: any ImageRowSink
    let cmykTransform: (any ColorTransform)?
    let width: Int
    var error: (any Error)?
    private var converted: [UInt8]

    init(sink: any ImageRowSink, cmykTransform: (any ColorTransform)?, width: Int) {
        self.sink = sink
        self.cmykTransform = cmykTransform
        self.width = width
        converted = cmykTransform == nil ? [] : [UInt8](repeating: 0, count: width * 4)
    }

    /// 0 to go on; 1 once the sink has thrown.
    func relay(_ row: UnsafePointer<UInt8>) -> Int32 {
        do {
            if let cmykTransform {
                try converted.withUnsafeMutableBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    base.update(from: row, count: width * 4)
                    cmykTransform.apply(base, count: width)
                    try sink.consume(base)
                }
            } else {
                try sink.consume(row)
            }
            return 0
        } catch {
            self.error = error
            return 1
        }
    }
}
