import Foundation
import Trove
import TroveCore

/// What `/info/SIGNATURE/OPTIONS/plain/SOURCE` answers about a source, as JSON: its size as displayed (after
/// its orientation turns it), format, frame count, the stored orientation, colour profile and size in bytes
/// (imgproxy Pro's info endpoint, in part).
/// Read from the file's header where the decoder can (its `info`, and a row-streaming decoder's header, which
/// carries the orientation and colours without decoding a row); other formats are decoded for the last two.
struct SourceInfo: Sendable, Equatable, Encodable {
    /// The colour profile part.
    struct ColorProfile: Sendable, Equatable, Encodable {
        /// The profile's own name (an ICC `desc`), or what the file says in its place (sRGB, CICP, gamma).
        let description: String
        /// The embedded ICC profile's size in bytes; nil when there is none.
        let iccBytes: Int?

        enum CodingKeys: String, CodingKey {
            case description
            case iccBytes = "icc_bytes"
        }
    }

    /// The size as displayed.
    let width: Int
    let height: Int
    let format: String
    let frames: Int
    /// The orientation the pixels are stored in, 1 (upright) to 8 (EXIF's numbering; AVIF's irot and imir as
    /// the EXIF value that means the same).
    let orientation: Int
    let colorProfile: ColorProfile?
    let size: Int
    /// The picture's ThumbHash (base64) and BlurHash (4x3 components), as displayed: what
    /// `ImagePipeline.placeholder(for:kind:)` gives.
    var thumbhash: String?
    var blurhash: String?

    enum CodingKeys: String, CodingKey {
        case width, height, format, frames, orientation, size, thumbhash, blurhash
        case colorProfile = "color_profile"
    }

    /// Reads `data` with the decoder `registry` picks for it; throws the decoder's error for a file it
    /// cannot read, or `TroveError.unsupportedFormat`-like errors when none decodes it.
    static func read(_ data: Data, registry: PluginRegistry, limits: DecodingLimits) throws -> SourceInfo {
        guard let decoder = registry.decoder(for: data) else {
            throw ProxyFailure(status: 422, "the source is not an image format this server reads")
        }
        let header = try decoder.info(data)
        var orientation = header?.orientation ?? .up
        var colors: ColorDescription?
        var decoded: Image?
        if let streaming = decoder as? any RowStreamingImageDecoder {
            let sink = HeaderOnlySink()
            do {
                try streaming.decode(data, options: DecodingOptions(limits: limits), into: sink)
            } catch is HeaderOnlySink.Stop {}
            orientation = sink.header?.orientation ?? orientation
            colors = sink.header?.colorDescription
            if sink.header == nil { decoded = try decoder.decode(data, limits: limits) }
        } else {
            decoded = try decoder.decode(data, limits: limits)
        }
        if let decoded {
            orientation = decoded.orientation
            colors = decoded.colorDescription
        }
        let stored = PixelSize(
            width: header?.width ?? decoded?.width ?? 0, height: header?.height ?? decoded?.height ?? 0)
        return SourceInfo(
            width: orientation.swapsAxes ? stored.height : stored.width,
            height: orientation.swapsAxes ? stored.width : stored.height,
            format: (header?.format ?? decoded?.sourceFormat ?? .unknown).rawValue,
            frames: header?.frameCount ?? max(1, decoded?.frames.count ?? 1), orientation: orientation.rawValue,
            colorProfile: colors.flatMap(Self.profile), size: data.count)
    }

    /// How a colour description reads: the ICC profile's name first, then what else the file said.
    static func profile(_ description: ColorDescription) -> ColorProfile? {
        if let icc = description.iccProfile, !icc.isEmpty {
            return ColorProfile(
                description: ICCProfileName.read(icc) ?? "unnamed ICC profile", iccBytes: icc.count)
        }
        if let cicp = description.cicp {
            return ColorProfile(
                description: "CICP \(cicp.primaries)/\(cicp.transfer)/\(cicp.matrix)"
                    + (cicp.fullRange ? " full range" : ""), iccBytes: nil)
        }
        if description.isSRGB { return ColorProfile(description: "sRGB", iccBytes: nil) }
        if let gamma = description.gamma {
            return ColorProfile(description: "gamma \(gamma.formatted())", iccBytes: nil)
        }
        return nil
    }

    /// The JSON body.
    func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}

/// Takes a row-streaming decoder's header and stops it before the first row.
private final class HeaderOnlySink: ImageRowSink {
    struct Stop: Error {}
    var header: RowStreamHeader?

    func begin(_ header: RowStreamHeader) throws {
        self.header = header
        throw Stop()
    }

    func consume(_ row: UnsafePointer<UInt8>) throws { throw Stop() }
}
