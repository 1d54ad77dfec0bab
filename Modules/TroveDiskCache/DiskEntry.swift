import Foundation
import TroveCore

/// What is stored beside an entry's bytes: HTTP validators for revalidation, content type, and dates.
public struct DiskEntryMetadata: Sendable, Equatable {
    public var validators: Validators
    public var contentType: String?
    /// When the bytes were fetched or last revalidated; `maxAge` counts from here.
    public var created: Date
    /// After this the entry reads as a miss (nil: only `maxAge` applies).
    public var expires: Date?

    public init(validators: Validators = .init(), contentType: String? = nil, created: Date = Date(),
                expires: Date? = nil) {
        self.validators = validators
        self.contentType = contentType
        self.created = created
        self.expires = expires
    }
}

/// One verified entry read from disk.
public struct DiskEntry: Sendable {
    public var key: String
    /// The original bytes, checked against the stored CRC (on this read, or on an earlier read of the
    /// same, unchanged file under `PayloadVerification.whenFileChanges`).
    public var data: Data
    public var metadata: DiskEntryMetadata
    /// Bytes the payload takes in the file (the compressed size when `compressed`).
    public var storedBytes: Int
    public var compressed: Bool

    public init(key: String, data: Data, metadata: DiskEntryMetadata, storedBytes: Int, compressed: Bool) {
        self.key = key
        self.data = data
        self.metadata = metadata
        self.storedBytes = storedBytes
        self.compressed = compressed
    }
}
