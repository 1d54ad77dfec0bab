import Foundation
import TroveCore

/// What is stored beside an entry's bytes: HTTP validators for revalidation, content type, and dates.
package struct DiskEntryMetadata: Sendable, Equatable {
    /// ETag and Last-Modified of the response, sent back when revalidating.
    package var validators: Validators
    /// The Content-Type the origin sent; nil when it sent none.
    package var contentType: String?
    /// When the bytes were fetched or last revalidated; `maxAge` counts from here.
    package var created: Date
    /// After this the entry reads as a miss (nil: only `maxAge` applies).
    package var expires: Date?
    /// The response said `must-revalidate` (RFC 9111 §5.2.2.2): once past `expires` the entry may not stand
    /// in for a failed origin. Entries of format version 1, which did not keep it, read as false.
    package var mustRevalidate: Bool
    /// The response's status code (200 for entries of format versions 1 and 2, and for non-HTTP sources).
    package var status = 200
    /// The response's header fields as received, updated by a 304 (empty for versions 1 and 2).
    package var headerFields: [HeaderField] = []
    /// The request fields that selected this response (`Vary`): a request matches only with the same values.
    package var selecting: [SelectingField] = []
    /// Set for a variant index: the entry holds no response, only the names of the request fields whose
    /// values pick the variant (stored under `CacheKey.variant(of:selecting:)`).
    package var variantNames: [String]?
    /// Placeholders computed from the payload, by kind (`PlaceholderKind.identifier`): kept with the entry so a
    /// later process answers them without reading or decoding the image. A new payload starts with none.
    package var placeholders: [String: String] = [:]

    /// Metadata from its parts; by default no validators or content type, created now, no `expires`, not
    /// must-revalidate.
    package init(
        validators: Validators = .init(), contentType: String? = nil, created: Date = Date(),
        expires: Date? = nil, mustRevalidate: Bool = false
    ) {
        self.validators = validators
        self.contentType = contentType
        self.created = created
        self.expires = expires
        self.mustRevalidate = mustRevalidate
    }
}

/// One verified entry read from disk.
package struct DiskEntry: Sendable {
    /// The entry's full key, as checked against the file's header.
    package var key: String
    /// The original bytes, checked against the stored CRC (on this read, or on an earlier read of the
    /// same, unchanged file under `PayloadVerification.whenFileChanges`).
    package var data: Data
    /// Validators, content type and dates stored with the bytes.
    package var metadata: DiskEntryMetadata
    /// Bytes the payload takes in the file (the compressed size when `compressed`).
    package var storedBytes: Int
    /// Whether the payload is stored compressed (`data` is already decompressed).
    package var compressed: Bool

    /// An entry from its parts.
    package init(key: String, data: Data, metadata: DiskEntryMetadata, storedBytes: Int, compressed: Bool) {
        self.key = key
        self.data = data
        self.metadata = metadata
        self.storedBytes = storedBytes
        self.compressed = compressed
    }
}
