import CJPEGShim
import Foundation
import TroveCore

/// Shows a JPEG as it arrives: a progressive one after each complete scan, through libjpeg-turbo's
/// buffered-image mode (a preview costs one output pass), a baseline one as its rows so far over
/// transparency. The libjpeg state (Huffman position, coefficient buffers, the output rows) lives between
/// calls, so each call decodes only the new bytes.
final class JPEGIncrementalDecoder: IncrementalImageDecoder {
    private let decoder: OpaquePointer?
    private let limits: DecodingLimits
    private var header: trove_jpeg_header?
    private var orientation = ExifOrientation.up
    private var shownScans = 0
    /// A single-scan file's rows so far (the rest zero), and how many of them the last preview showed.
    private var rows: [UInt8] = []
    private var shownRows = 0
    /// Set by the first failure, which every later call repeats.
    private var failure: (any Error)?

    init(limits: DecodingLimits, maxScans: Int) {
        self.limits = limits
        // libjpeg's working memory (the coefficient buffers) is bounded by the same byte limit.
        decoder = trove_jpeg_progressive_create(limits.maxDecodedBytes, Int32(clamping: maxScans))
    }

    deinit {
        trove_jpeg_progressive_destroy(decoder)
    }

    func preview(_ data: Data) throws -> Image? {
        if let failure { throw failure }
        do {
            return try decodePreview(data)
        } catch {
            failure = error
            throw error
        }
    }

    private func decodePreview(_ data: Data) throws -> Image? {
        guard let decoder else { throw JPEGDecoder.failure("out of memory starting libjpeg") }
        return try data.withUnsafeBytes { bytes -> Image? in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
                return nil
            }
            func lastError() -> TroveError {
                JPEGDecoder.failure(String(cString: trove_jpeg_progressive_error(decoder)))
            }
            let headerWasRead = header != nil
            var scans = try consume(decoder, base, bytes.count, lastError)
            if !headerWasRead && header != nil {
                // The header just arrived and passed the limits: go on to the scans already here.
                scans = try consume(decoder, base, bytes.count, lastError)
            }
            guard let header else { return nil }
            let width = Int(header.width), height = Int(header.height)
            if trove_jpeg_progressive_is_sequential(decoder) != 0 {
                if rows.isEmpty { rows = [UInt8](repeating: 0, count: width * height * 4) }
                let read = rows.withUnsafeMutableBufferPointer { buffer in
                    trove_jpeg_progressive_read_rows(decoder, base, bytes.count, buffer.baseAddress, buffer.count)
                }
                guard read >= 0 else { throw lastError() }
                guard read > shownRows else { return nil }
                shownRows = Int(read)
                return Image(
                    width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: rows,
                    sourceFormat: .jpeg, orientation: orientation)
            }
            guard scans > shownScans else { return nil }
            let pixels = try [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
                guard let out = buffer.baseAddress else { return }
                guard trove_jpeg_progressive_render(decoder, base, bytes.count, out, buffer.count) == 0 else {
                    throw lastError()
                }
                initialized = buffer.count
            }
            shownScans = scans
            return Image(
                width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: pixels,
                sourceFormat: .jpeg, orientation: orientation)
        }
    }

    /// Feeds the bytes; checks the limits once the header is read, before libjpeg allocates for the image.
    private func consume(
        _ decoder: OpaquePointer, _ base: UnsafePointer<UInt8>, _ count: Int, _ lastError: () -> TroveError
    ) throws -> Int {
        var read = trove_jpeg_header()
        var ready: Int32 = 0
        let scans = trove_jpeg_progressive_consume(decoder, base, count, &read, &ready)
        guard scans >= 0 else { throw lastError() }
        if ready != 0 {
            try limits.check(width: Int(read.width), height: Int(read.height))
            orientation =
                read.exif.map {
                    ExifBlock(tiff: UnsafeRawBufferPointer(start: $0, count: read.exif_length))?.orientation ?? .up
                } ?? .up
            header = read
        }
        return Int(scans)
    }
}
