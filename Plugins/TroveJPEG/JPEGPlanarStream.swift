import CJPEGShim
import Foundation
import TroveCore

/// A planar JPEG decode fed its body as it arrives: libjpeg-turbo reads through a suspending source
/// (`trove_jpeg_decoder_create_streaming`), so each call decodes what the new bytes allow and stops where they
/// run out, to go on in the next. The header, then a progressive file's scans, then the rows: a baseline
/// file's rows reach the sink as their data arrives; a progressive file's once its last scan has. Between
/// calls it keeps only the bytes libjpeg will read again (the marker or MCU it stopped in), and fails past
/// `maxHeldBytes` of them.
final class JPEGPlanarStream: PlanarStream {
    private enum Stage {
        case header, starting, reading
        case ended(PlanarStreamProgress)
        case failed(any Error)
    }

    private let owner: JPEGDecoder
    private let options: DecodingOptions
    private let accepts: (PlanarSourceFacts) -> Bool
    private let sink: any PlaneRowSink
    /// Nil when libjpeg's decoder could not be allocated.
    private let decoder: OpaquePointer?
    private var stage = Stage.header
    private var relay: PlaneRelay?
    /// The bytes given that libjpeg has not read for good: it resumes at their start.
    private var unread = Data()
    /// How many bytes all calls were given.
    private var given = 0

    /// How many of the bytes given it holds: those libjpeg will read again.
    var heldBytes: Int { unread.count }

    /// The most bytes it holds for libjpeg to read again. A marker segment is at most 64 KiB and an MCU far
    /// less, but libjpeg reads a run of 0xFF fill bytes without saving its place, so such a run would be held,
    /// and read again with every piece, to its end.
    static let maxHeldBytes = 1 << 20

    init(
        decoder owner: JPEGDecoder, options: DecodingOptions, accepts: @escaping (PlanarSourceFacts) -> Bool,
        sink: any PlaneRowSink
    ) {
        self.owner = owner
        self.options = options
        self.accepts = accepts
        self.sink = sink
        // libjpeg's working memory (progressive coefficient buffers) is bounded by the same byte limit.
        decoder = trove_jpeg_decoder_create_streaming(
            options.limits.maxDecodedBytes, Int32(clamping: owner.maxScans))
    }

    deinit { trove_jpeg_decoder_destroy(decoder) }

    func advance(_ piece: Data, isComplete: Bool) throws -> PlanarStreamProgress {
        switch stage {
        case .ended(let progress): return progress
        case .failed(let error): throw error
        default: break
        }
        do {
            guard let decoder else { throw JPEGDecoder.failure("out of memory starting libjpeg") }
            given += piece.count
            guard given > 0 else {
                if isComplete { throw JPEGDecoder.failure("the file is empty") }
                return .needsMore
            }
            if unread.isEmpty { unread = piece } else { unread.append(piece) }
            let progress = try unread.withUnsafeBytes { bytes in
                trove_jpeg_decoder_attach(
                    decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, isComplete ? 1 : 0)
                defer { trove_jpeg_decoder_detach(decoder) }
                return try step(decoder)
            }
            if progress == .needsMore {
                keepUnread(decoder)
                guard unread.count <= Self.maxHeldBytes else {
                    throw JPEGDecoder.failure(
                        "libjpeg left over \(Self.maxHeldBytes >> 20) MiB of the body unread (a long run of fill bytes); "
                            + "decode the file whole")
                }
            } else {
                stage = .ended(progress)
                unread = Data()
            }
            return progress
        } catch {
            stage = .failed(error)
            unread = Data()
            throw error
        }
    }

    /// Lets go of the bytes libjpeg has read for good, copying the rest, so the pieces they came in are freed.
    private func keepUnread(_ decoder: OpaquePointer) {
        let consumed = trove_jpeg_decoder_forget_consumed(decoder)
        guard consumed > 0 else { return }
        unread = unread.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, consumed < bytes.count else { return Data() }
            return Data(bytes: base + consumed, count: bytes.count - consumed)
        }
    }

    /// Goes through the stages as far as the attached bytes allow.
    private func step(_ decoder: OpaquePointer) throws -> PlanarStreamProgress {
        func lastError() -> TroveError { JPEGDecoder.failure(String(cString: trove_jpeg_decoder_error(decoder))) }
        if case .header = stage {
            var header = trove_jpeg_header()
            switch trove_jpeg_decoder_read_header(decoder, &header) {
            case 0: break
            case 2: return .needsMore
            default: throw lastError()
            }
            guard accepts(JPEGDecoder.planarFacts(header)) else { return .declined }
            _ = try owner.prepare(decoder, header: header, options: options, lastError: lastError)
            stage = .starting
        }
        if case .starting = stage {
            var layout = trove_jpeg_planar_layout()
            switch trove_jpeg_decoder_start_planes(decoder, &layout) {
            case 0: break
            case 2: return .needsMore
            default: throw lastError()
            }
            let planes = JPEGDecoder.planes(of: layout)
            try sink.begin(
                PlanarStreamHeader(
                    width: Int(layout.width), height: Int(layout.height), planes: planes, sourceFormat: .jpeg))
            relay = PlaneRelay(sink: sink, planes: planes, rowsPerGroup: JPEGDecoder.rowsPerGroup(of: layout))
            stage = .reading
        }
        guard let relay else { throw JPEGDecoder.failure("the planar decode lost its rows") }
        let status = trove_jpeg_decoder_read_planes(
            decoder,
            { context, rows in
                guard let context, let rows else { return 1 }
                return Unmanaged<PlaneRelay>.fromOpaque(context).takeUnretainedValue().relay(rows)
            }, Unmanaged.passUnretained(relay).toOpaque())
        if let error = relay.error { throw error }
        switch status {
        case 0: return .finished
        case 2: return .needsMore
        default: throw lastError()
        }
    }
}

/// Carries a plane sink through libjpeg's C callback, keeping what the sink threw, and handing on only the
/// rows of each group that lie inside the plane (the last group's rows past its end are padding).
private final class PlaneRelay {
    let sink: any PlaneRowSink
    let planes: [PlaneLayout]
    let rowsPerGroup: [Int]
    var rowsDelivered: [Int]
    var error: (any Error)?

    init(sink: any PlaneRowSink, planes: [PlaneLayout], rowsPerGroup: [Int]) {
        self.sink = sink
        self.planes = planes
        self.rowsPerGroup = rowsPerGroup
        rowsDelivered = [Int](repeating: 0, count: planes.count)
    }

    /// 0 to go on; 1 once the sink has thrown.
    func relay(_ rows: UnsafePointer<UnsafePointer<UnsafePointer<UInt8>?>?>) -> Int32 {
        do {
            for plane in 0..<planes.count {
                guard let planeRows = rows[plane] else { return 1 }
                let count = min(rowsPerGroup[plane], planes[plane].height - rowsDelivered[plane])
                for row in 0..<max(count, 0) {
                    guard let samples = planeRows[row] else { return 1 }
                    try sink.consume(plane: plane, row: samples)
                }
                rowsDelivered[plane] += max(count, 0)
            }
            return 0
        } catch {
            self.error = error
            return 1
        }
    }
}
