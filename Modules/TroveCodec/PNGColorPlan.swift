import TroveCore

/// How a PNG's colours leave the decoder. 16-bit samples under a description the converter acts on are brought
/// to sRGB before they are rounded to 8 bits (the row expander runs `wideTransform`), so their extra precision
/// reaches the conversion; the pixels are then sRGB. Anything else is left to the caller's colour stage, with
/// the file's description on the image.
struct PNGColorPlan {
    /// The transform from RGBA16 to sRGB RGBA8 (`ColorSamples.rgba16BigEndian`), for a 16-bit file only.
    let wideTransform: (any ColorTransform)?
    /// What the decoded pixels' colours are: nil once converted.
    let description: ColorDescription?

    init(file: PNGFileLayout, converter: (any ColorConverter)?) {
        guard file.header.bitDepth == 16, let converter, let description = file.colorDescription,
            !description.isEmpty
        else {
            (wideTransform, self.description) = (nil, file.colorDescription)
            return
        }
        do {
            wideTransform = try converter.transformToSRGB(from: description, samples: .rgba16BigEndian)
            self.description = wideTransform == nil ? description : nil
        } catch {
            // A description no converter can use means sRGB, as the colour stage treats it (the converter
            // reports why): the caller's stage is not asked again.
            (wideTransform, self.description) = (nil, nil)
        }
    }
}
