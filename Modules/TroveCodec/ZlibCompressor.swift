import CDeflate
import Foundation
import TroveCore

/// Compresses disk entries in the zlib format (deflate with a zlib header and Adler-32 trailer), by libdeflate.
package struct ZlibCompressor: Compressor {
    /// The registry name, "zlib".
    package let name = "zlib"
    /// Entry-header id 1.
    package let id: UInt8 = 1
    /// The zlib level (0...9) used when `compress` is called with a nil level.
    package let defaultLevel: Int

    /// Deflate cannot expand data more than about 1032:1, so a longer claimed length is corrupt
    /// and must not be allocated.
    static let maxExpansionRatio = 1032

    /// A compressor using `defaultLevel` (0 stores, 9 is smallest; default 6) when no level is given. Not checked
    /// here: a level outside 0...9 makes `compress` throw.
    package init(defaultLevel: Int = 6) {
        self.defaultLevel = defaultLevel
    }

    /// Deflates `data` at `level`, or `defaultLevel` when nil. Throws `invalidConfiguration` for a level outside
    /// 0...9 or when zlib fails (out of memory).
    package func compress(_ data: Data, level: Int?) throws -> Data {
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
    package func decompress(_ data: Data, originalLength: Int) throws -> Data {
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

    /// Deflates `input` into a new buffer at `level` (0...9, zlib's scale) in the zlib format; shared with the
    /// PNG encoder. libdeflate compresses the whole buffer 2.6-2.9x faster than zlib here, and a little
    /// smaller; any zlib reader (ours streams with zlib) reads its output.
    static func deflate(
        _ input: UnsafeRawBufferPointer, level: Int,
        error: (String) -> TroveError
    ) throws -> Data {
        guard let compressor = libdeflate_alloc_compressor(Int32(level)) else { throw error("out of memory") }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, input.count)
        var output = Data(count: bound)
        // libdeflate wants a valid pointer even for an empty input.
        var empty: UInt8 = 0
        let written = output.withUnsafeMutableBytes { out in
            withUnsafeMutablePointer(to: &empty) { emptyPointer in
                libdeflate_zlib_compress(
                    compressor, input.baseAddress ?? UnsafeRawPointer(emptyPointer), input.count,
                    out.baseAddress, out.count)
            }
        }
        // Zero means the output did not fit, which the bound rules out.
        guard written > 0 else { throw error("libdeflate found its own bound of \(bound) bytes too small") }
        output.count = written
        return output
    }
}
