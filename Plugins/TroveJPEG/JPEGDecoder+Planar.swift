import CJPEGShim
import Foundation
import TroveCore

extension JPEGDecoder: PlanarImageDecoder {
    /// Hands the file's Y, Cb and Cr planes to `sink` as libjpeg-turbo's IDCT makes them (`jpeg_read_raw_data`,
    /// scaled as `decode(_:options:)` scales; no upsampling, no colour conversion), an iMCU row at a time from
    /// buffers in libjpeg's pool. Returns false, decoding nothing, when `accepts` declines the header's facts.
    /// Throws for a damaged or truncated file, a layout other than YCbCr with 1x1 chroma, or what `sink` threw.
    package func decodePlanes(
        _ data: Data, options: DecodingOptions, accepts: (PlanarSourceFacts) -> Bool, into sink: any PlaneRowSink
    ) throws -> Bool {
        try withDecoder(data, limits: options.limits) { decoder, header, lastError in
            guard accepts(Self.planarFacts(header)) else { return false }
            _ = try prepare(decoder, header: header, options: options, lastError: lastError)
            var layout = trove_jpeg_planar_layout()
            guard trove_jpeg_decoder_start_planes(decoder, &layout) == 0 else { throw lastError() }
            let planes = Self.planes(of: layout)
            try sink.begin(
                PlanarStreamHeader(
                    width: Int(layout.width), height: Int(layout.height), planes: planes, sourceFormat: .jpeg))
            let relay = PlaneRelay(sink: sink, planes: planes, rowsPerGroup: Self.rowsPerGroup(of: layout))
            let status = withExtendedLifetime(relay) {
                trove_jpeg_decoder_read_planes(
                    decoder,
                    { context, rows in
                        guard let context, let rows else { return 1 }
                        return Unmanaged<PlaneRelay>.fromOpaque(context).takeUnretainedValue().relay(rows)
                    }, Unmanaged.passUnretained(relay).toOpaque())
            }
            if let error = relay.error { throw error }
            guard status == 0 else { throw lastError() }
            return true
        }
    }

    /// The header's facts for choosing a path.
    static func planarFacts(_ header: trove_jpeg_header) -> PlanarSourceFacts {
        let components = Int(header.components)
        let model: PlanarSourceFacts.ColorModel =
            switch (header.color_space, components) {
            case (3, 3): .yCbCr  // JCS_YCbCr
            case (1, 1): .gray  // JCS_GRAYSCALE
            default: .other
            }
        let horizontal = withUnsafeBytes(of: header.sampling_h) { Array($0.bindMemory(to: Int32.self)) }
        let vertical = withUnsafeBytes(of: header.sampling_v) { Array($0.bindMemory(to: Int32.self)) }
        let sampling = (0..<min(components, horizontal.count)).map {
            SamplingFactors(Int(horizontal[$0]), Int(vertical[$0]))
        }
        return PlanarSourceFacts(
            width: Int(header.width), height: Int(header.height), colorModel: model, sampling: sampling,
            orientation: orientation(header), colorDescription: colorDescription(header))
    }

    /// Each plane's size and how many pixels its samples span: the luma's scale over the plane's.
    private static func planes(of layout: trove_jpeg_planar_layout) -> [PlaneLayout] {
        let raw = withUnsafeBytes(of: layout.planes) { Array($0.bindMemory(to: trove_jpeg_plane.self)) }
        let luma = raw[0]
        return raw.map {
            PlaneLayout(
                width: Int($0.width), height: Int($0.height),
                spanX: Double(luma.h_scale) / Double(max($0.h_scale, 1)),
                spanY: Double(luma.v_scale) / Double(max($0.v_scale, 1)))
        }
    }

    private static func rowsPerGroup(of layout: trove_jpeg_planar_layout) -> [Int] {
        withUnsafeBytes(of: layout.planes) { $0.bindMemory(to: trove_jpeg_plane.self).map { Int($0.rows_per_group) } }
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
