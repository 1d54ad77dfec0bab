import Foundation
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

    init(_ data: Data, decoder: any ImageDecoder) {
        self.decoder = decoder
        do {
            header = try decoder.info(data)
            readsHeader = true
        } catch {
            header = nil
            readsHeader = false
        }
    }

    /// Whether the decode and the transforms go to `DecodeThreads`, off the cooperative pool.
    var isLarge: Bool { DecodeThreads.takes(header) }
}
