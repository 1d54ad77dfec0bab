import CJPEGShim
import Foundation
import TroveCore

extension JPEGDecoder: PlanarImageDecoder {
    /// A planar decode of one body: the file's Y, Cb and Cr planes handed to `sink` as libjpeg-turbo's IDCT
    /// makes them (`jpeg_read_raw_data`, scaled as `decode(_:options:)` scales; no upsampling, no colour
    /// conversion), an iMCU row at a time from buffers in libjpeg's pool, as far as the bytes given so far go.
    package func makePlanarStream(
        options: DecodingOptions, accepts: @escaping (PlanarSourceFacts) -> Bool, into sink: any PlaneRowSink
    ) -> any PlanarStream {
        JPEGPlanarStream(decoder: self, options: options, accepts: accepts, sink: sink)
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
    static func planes(of layout: trove_jpeg_planar_layout) -> [PlaneLayout] {
        let raw = withUnsafeBytes(of: layout.planes) { Array($0.bindMemory(to: trove_jpeg_plane.self)) }
        let luma = raw[0]
        return raw.map {
            PlaneLayout(
                width: Int($0.width), height: Int($0.height),
                spanX: Double(luma.h_scale) / Double(max($0.h_scale, 1)),
                spanY: Double(luma.v_scale) / Double(max($0.v_scale, 1)))
        }
    }

    static func rowsPerGroup(of layout: trove_jpeg_planar_layout) -> [Int] {
        withUnsafeBytes(of: layout.planes) { $0.bindMemory(to: trove_jpeg_plane.self).map { Int($0.rows_per_group) } }
    }
}
