extension ColorDescription {
    /// The ICC profile an encoder should embed with pixels of `pixelFormat`, or nil when there is none to
    /// embed: no profile, a CMYK source (its pixels are already RGB), a profile too short to have a header,
    /// or one whose colour space does not fit the pixels (an RGB profile on gray pixels is invalid in PNG
    /// and JPEG, and would be read wrongly). An image carries a description only when the colour stage left
    /// its pixels as the source stored them, so embedding the profile keeps its colours right.
    package func embeddableProfile(for pixelFormat: PixelFormat) -> [UInt8]? {
        guard cmyk == nil, let profile = iccProfile, profile.count >= 128 else { return nil }
        // An ICC header: "acsp" at byte 36, the data colour space at byte 16.
        guard Array(profile[36..<40]) == Array("acsp".utf8) else { return nil }
        let space = Array(profile[16..<20])
        switch pixelFormat {
        case .rgba8: return space == Array("RGB ".utf8) ? profile : nil
        case .gray8: return space == Array("GRAY".utf8) ? profile : nil
        }
    }
}
