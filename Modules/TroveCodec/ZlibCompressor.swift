import CZlib
import Foundation
import TroveCore

/// Compresses disk entries with zlib (deflate with a zlib header and Adler-32 trailer).
public struct ZlibCompressor: Compressor {
    /// The registry name, "zlib".
    public let name = "zlib"
    /// Entry-header id 1.
    public let id: UInt8 = 1
    /// The zlib level (0...9) used when `compress` is called with a nil level.
    public let defaultLevel: Int

    /// Deflate cannot expand data more than about 1032:1, so a longer claimed length is corrupt
    /// and must not be allocated.
    static let maxExpansionRatio = 1032

    /// A compressor using `defaultLevel` (0 stores, 9 is smallest; default 6) when no level is given. Not checked
    /// here: a level outside 0...9 makes `compress` throw.
    public init(defaultLevel: Int = 6) {
        self.defaultLevel = defaultLevel
    }

    /// Deflates `data` at `level`, or `defaultLevel` when nil. Throws `invalidConfiguration` for a level outside
    /// 0...9 or when zlib fails (out of memory).
    public func compress(_ data: Data, level: Int?) throws -> Data {
        let level = level ?? defaultLevel
        guard (0...9).contains(level) else {
            throw TroveError.invalidConfiguration("zlib compression level \(level) is out of range 0...9")
        }
        return try data.withUnsafeBytes { input in
            try Self.deflate(input, level: level) { reason in
                TroveError.invalidConfiguration("zlib could not compress: \(reason)")
            }
        }
    }

    /// Inflates exactly `originalLength` bytes. Throws `decompressionFailed` for a corrupt or truncated stream,
    /// a length that differs, or an `originalLength` no deflate stream of this size could produce.
    public func decompress(_ data: Data, originalLength: Int) throws -> Data {
        func failure(_ reason: String) -> TroveError {
            TroveError.decompressionFailed(compressor: name, reason: reason)
        }
        guard originalLength >= 0 else { throw failure("negative original length \(originalLength)") }
        let (bound, overflow) = data.count.multipliedReportingOverflow(by: Self.maxExpansionRatio)
        guard overflow || originalLength <= bound + 64 else {
            throw failure("original length \(originalLength) is impossible for \(data.count) compressed bytes")
        }
        // One spare byte makes a stream longer than originalLength detectable.
        var output = Data(count: originalLength + 1)
        let outcome = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                ZlibInflater.inflate(input, ranges: [0..<input.count], into: out)
            }
        }
        switch outcome {
        case .finished(let produced) where produced == originalLength:
            output.count = originalLength
            return output
        case .finished(let produced):
            throw failure("stream holds \(produced) bytes, expected \(originalLength)")
        case .truncated(let produced):
            throw failure("stream ends early after \(produced) of \(originalLength) bytes (truncated entry)")
        case .outputFull:
            throw failure("stream holds more than the expected \(originalLength) bytes")
        case .corrupt(let reason):
            throw failure("corrupt stream: \(reason)")
        }
    }

    /// Deflates `input` into a new buffer at `level`; shared with the PNG encoder.
    static func deflate(_ input: UnsafeRawBufferPointer, level: Int,
                        error: (String) -> TroveError) throws -> Data {
        let bound = Int(compressBound(UInt(input.count)))
        var output = Data(count: bound)
        var written = UInt(bound)
        let status = output.withUnsafeMutableBytes { out -> Int32 in
            guard let outBase = out.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return Z_BUF_ERROR }
            // zlib reads nothing from a zero-length source, but still wants a valid pointer.
            var empty: UInt8 = 0
            return withUnsafePointer(to: &empty) { emptyPointer in
                let source = input.baseAddress?.assumingMemoryBound(to: Bytef.self) ?? emptyPointer
                return compress2(outBase, &written, source, UInt(input.count), Int32(level))
            }
        }
        guard status == Z_OK else {
            throw error(status == Z_MEM_ERROR ? "out of memory" : "zlib status \(status)")
        }
        output.count = Int(written)
        return output
    }
}
