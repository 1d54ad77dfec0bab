import CJPEGShim
import Foundation
import TroveCore

extension JPEGDecoder: RowStreamingImageDecoder {
    /// Hands each scanline to `sink` as libjpeg-turbo produces it (scaled as `decode(_:options:)` scales),
    /// from one row buffer in libjpeg's pool: no image-sized buffer is allocated. Limits apply to the stored
    /// size, as for a whole decode.
    public func decode(_ data: Data, options: DecodingOptions, into sink: any ImageRowSink) throws {
        try withDecoder(data, limits: options.limits) { decoder, header, lastError in
            let layout = try prepare(decoder, header: header, options: options, lastError: lastError)
            try sink.begin(layout)
            let relay = RowRelay(sink: sink)
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
private final class RowRelay {
    let sink: any ImageRowSink
    var error: (any Error)?

    init(sink: any ImageRowSink) { self.sink = sink }

    /// 0 to go on; 1 once the sink has thrown.
    func relay(_ row: UnsafePointer<UInt8>) -> Int32 {
        do {
            try sink.consume(row)
            return 0
        } catch {
            self.error = error
            return 1
        }
    }
}
