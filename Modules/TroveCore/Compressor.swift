import Foundation

/// Compresses whole disk entries. The `id` is stored in each entry's header, so it must never change.
public protocol Compressor: Sendable {
    /// The registry name, e.g. "zlib".
    var name: String { get }
    /// Stored in the entry header; 0 is reserved for `none`.
    var id: UInt8 { get }
    /// Compresses a whole entry. `level` is on the compressor's own scale (zlib: 0...9); nil means its default.
    /// Throws when the level is out of range or the compressor fails.
    func compress(_ data: Data, level: Int?) throws -> Data
    /// Restores exactly `originalLength` bytes, or throws.
    func decompress(_ data: Data, originalLength: Int) throws -> Data
}

/// Stores bytes as they are.
@usableFromInline package struct NoCompressor: Compressor {
    /// The registry name, "none".
    @usableFromInline package let name = "none"
    /// Entry-header id 0, the one reserved for uncompressed entries.
    @usableFromInline package let id: UInt8 = 0

    /// The pass-through compressor.
    @usableFromInline package init() {}

    /// Returns `data` unchanged; `level` is ignored.
    @usableFromInline package func compress(_ data: Data, level: Int?) throws -> Data { data }

    /// Returns `data` unchanged; throws `TroveError.decompressionFailed` unless it is exactly `originalLength` bytes.
    @usableFromInline package func decompress(_ data: Data, originalLength: Int) throws -> Data {
        guard data.count == originalLength else {
            throw TroveError.decompressionFailed(
                compressor: name,
                reason: "stored \(data.count) bytes, expected \(originalLength)")
        }
        return data
    }
}
