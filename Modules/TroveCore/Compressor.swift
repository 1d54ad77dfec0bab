import Foundation

/// Compresses whole disk entries. The `id` is stored in each entry's header, so it must never change.
public protocol Compressor: Sendable {
    /// The registry name, e.g. "zlib".
    var name: String { get }
    /// Stored in the entry header; 0 is reserved for `none`.
    var id: UInt8 { get }
    func compress(_ data: Data, level: Int?) throws -> Data
    /// Restores exactly `originalLength` bytes, or throws.
    func decompress(_ data: Data, originalLength: Int) throws -> Data
}

/// Stores bytes as they are.
public struct NoCompressor: Compressor {
    public let name = "none"
    public let id: UInt8 = 0

    public init() {}

    public func compress(_ data: Data, level: Int?) throws -> Data { data }

    public func decompress(_ data: Data, originalLength: Int) throws -> Data {
        guard data.count == originalLength else {
            throw TroveError.decompressionFailed(compressor: name,
                                                 reason: "stored \(data.count) bytes, expected \(originalLength)")
        }
        return data
    }
}
