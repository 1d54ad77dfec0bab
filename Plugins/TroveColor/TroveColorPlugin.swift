import TroveCore

/// Colour management on LittleCMS 2: registers the `lcms` colour converter, which brings what a decoder found
/// (an embedded ICC profile, AVIF's CICP code points, PNG's gAMA/cHRM, a CMYK JPEG's inks) to sRGB. A pipeline
/// built from a registry with it converts every decoded image once it is reduced, before the transforms (after
/// a leading shrinking resize, on its output's pixels); CMYK JPEGs are converted row by row as they are
/// decoded. Install it in a registry of your own with
///
/// ```swift
/// try registry.install(TroveColorPlugin())
/// ```
///
/// (the `trove` tool and `trove serve` install it by default). A damaged profile, or one of a colour space the
/// pixels are not in, is treated as sRGB and the pipeline logs a warning. A CMYK JPEG without a profile is
/// converted through `LCMSColorConverter.defaultCMYKProfilePaths` (Ghostscript's `default_cmyk.icc`, Debian's
/// libgs-common), or through the decoder's plain ink formula when none of them is installed.
public struct TroveColorPlugin: TrovePlugin {
    /// "color".
    public let name = "color"
    /// The plugin's version.
    public let version = "1.0.0"
    private let converter: LCMSColorConverter

    /// The plugin with a converter that keeps up to `cacheCapacity` LittleCMS transforms (by profile).
    public init(cacheCapacity: Int = 32) {
        converter = LCMSColorConverter(cacheCapacity: cacheCapacity)
    }

    /// Registers the `lcms` colour converter.
    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(colorConverter: converter)
    }
}
