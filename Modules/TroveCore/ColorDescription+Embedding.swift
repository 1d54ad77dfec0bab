extension ColorDescription {
    /// The ICC profile an encoder should embed with pixels of `pixelFormat`, or nil when there is none to
    /// embed: no profile, a CMYK source (its pixels are already RGB), a profile too short to have a header,
    /// or one whose colour space does not fit the pixels (an RGB profile on gray pixels is invalid in PNG
    /// and JPEG, and would be read wrongly). An image carries a description only when the colour stage left
    /// its pixels as the source stored them, so embedding the profile keeps its colours right.
    package func embeddableProfile(for pixelFormat: PixelFormat) -> [UInt8]? {
        guard cmyk == nil, let profile = iccProfile, let space = Self.iccColorSpace(of: profile) else { return nil }
        switch pixelFormat {
        case .rgba8: return space == "RGB " ? profile : nil
        case .gray8: return space == "GRAY" ? profile : nil
        }
    }

    /// The description of a file whose samples are colour (RGB or YCbCr, not gray): without a gray ICC
    /// profile, which browsers and libvips ignore on such a file. Converting colour pixels through a gray
    /// profile reads one channel and turns the picture gray. Nil when nothing else is said.
    package func forColorSamples() -> ColorDescription? {
        var description = self
        if let profile = iccProfile, Self.iccColorSpace(of: profile) == "GRAY" { description.iccProfile = nil }
        return description.isEmpty ? nil : description
    }

    /// The data colour space an ICC profile's header names ("RGB ", "GRAY", "CMYK"...), or nil when the bytes
    /// have no ICC header ("acsp" at byte 36).
    package static func iccColorSpace(of profile: [UInt8]) -> String? {
        guard profile.count >= 128, Array(profile[36..<40]) == Array("acsp".utf8) else { return nil }
        return String(decoding: profile[16..<20], as: UTF8.self)
    }
}
