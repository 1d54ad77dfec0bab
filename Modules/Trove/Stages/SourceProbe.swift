import Foundation
import TroveCodec
import TroveCore

/// What a source is, found once per request and carried to every step that asks (the decode memory budget,
/// the choice of threads, the decode): the decoder that claims its bytes, found by the fetch's check when the
/// bytes were fetched just now, and its header, read once.
struct SourceProbe: Sendable {
    let decoder: any ImageDecoder
    /// Nil when the decoder gives none, or cannot read it (`readsHeader` false): the decode reports why.
    let header: ImageInfo?
    /// False when reading the header threw: a damaged header, which the decode reports at once.
    let readsHeader: Bool
    /// What the decoder holds besides its rows when it streams them: Trove's PNG decoder's inflated image data
    /// (`PNGDecoder.scanlineBytes(of:)`), else 0. The decode memory budget counts it.
    let streamingBufferBytes: Int

    init(_ data: Data, decoder: any ImageDecoder) {
        self.decoder = decoder
        do {
            header = try decoder.info(data)
            readsHeader = true
        } catch {
            header = nil
            readsHeader = false
        }
        streamingBufferBytes = decoder is PNGDecoder ? PNGDecoder.scanlineBytes(of: data) : 0
    }

    /// Where the decode and the transforms run: on `DecodeThreads`, off the cooperative pool, for a large
    /// source; nil for the caller's threads.
    var threads: DecodeThreads? { DecodeThreads.takes(header) ? .shared : nil }
}
