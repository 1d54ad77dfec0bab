import CAVIF
import TroveCore

/// The crop a 'clap' (clean aperture) box asks for, worked out here rather than by libavif 0.11, whose
/// strict check refuses crops the format allows (an offset that is odd under chroma subsampling, say).
/// The crop is taken from the RGBA pixels, so subsampling never matters. A box that describes no rectangle
/// of whole pixels inside the image is ignored and the whole image shown, as browsers do.
enum AVIFCleanAperture {
    /// A rectangle of whole pixels.
    struct Rect: Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// The part of a `width x height` image the box keeps, or nil to keep all of it.
    static func cropRect(_ clap: avifCleanApertureBox, width: Int, height: Int) -> Rect? {
        guard clap.widthD > 0, clap.heightD > 0, clap.horizOffD > 0, clap.vertOffD > 0 else { return nil }
        let cleanWidth = Double(clap.widthN) / Double(clap.widthD)
        let cleanHeight = Double(clap.heightN) / Double(clap.heightD)
        // ISO/IEC 14496-12, 12.1.4: the offsets are signed and move the crop's centre from the image's.
        let horizontalOffset = Double(Int32(bitPattern: clap.horizOffN)) / Double(clap.horizOffD)
        let verticalOffset = Double(Int32(bitPattern: clap.vertOffN)) / Double(clap.vertOffD)
        let left = horizontalOffset + (Double(width) - cleanWidth) / 2
        let top = verticalOffset + (Double(height) - cleanHeight) / 2
        // MIAF asks for whole pixels; a crop edge between pixels is not a crop a reader can show exactly.
        guard let x = whole(left), let y = whole(top), let cropWidth = whole(cleanWidth),
            let cropHeight = whole(cleanHeight), cropWidth >= 1, cropHeight >= 1, x >= 0, y >= 0,
            x + cropWidth <= width, y + cropHeight <= height
        else { return nil }
        return Rect(x: x, y: y, width: cropWidth, height: cropHeight)
    }

    /// `value` as a whole number, when it is one (the box's fractions are exact in a Double).
    private static func whole(_ value: Double) -> Int? {
        guard value.isFinite, abs(value) < 1e12, abs(value - value.rounded()) < 1e-9 else { return nil }
        return Int(value.rounded())
    }

    /// The rows of `rect` out of `pixels`, RGBA8 rows of `width` pixels.
    static func crop(_ pixels: [UInt8], width: Int, to rect: Rect) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rect.width * rect.height * 4)
        for y in rect.y..<(rect.y + rect.height) {
            let start = (y * width + rect.x) * 4
            out += pixels[start..<(start + rect.width * 4)]
        }
        return out
    }
}
