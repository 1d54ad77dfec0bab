import Foundation

/// An image as full-range YCbCr planes (JFIF's), chroma at half the luma's size each way (4:2:0, rounded up):
/// what a planar encoder takes. Each plane is tightly packed.
package struct YCbCrPlanes: Sendable, Equatable {
    /// The image's (luma plane's) size.
    package let width: Int
    package let height: Int
    package var y: [UInt8]
    package var cb: [UInt8]
    package var cr: [UInt8]

    /// Chroma samples across: half the width, rounded up.
    package var chromaWidth: Int { (width + 1) / 2 }
    /// Chroma rows: half the height, rounded up.
    package var chromaHeight: Int { (height + 1) / 2 }

    /// Planes for a `width x height` image; nil unless each plane holds exactly its samples.
    package init?(width: Int, height: Int, y: [UInt8], cb: [UInt8], cr: [UInt8]) {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        guard width > 0, height > 0, y.count == width * height, cb.count == chroma, cr.count == chroma else {
            return nil
        }
        self.width = width
        self.height = height
        self.y = y
        self.cb = cb
        self.cr = cr
    }
}

/// An encoder that can write an image from its YCbCr planes, skipping the colour conversion and chroma
/// downsampling it would do for RGBA.
package protocol PlanarImageEncoder: ImageEncoder {
    /// Whether `encode(_:metadata:options:)` with these options gives what RGBA would: false where the RGBA
    /// encode keeps what 4:2:0 planes have lost (lossless output).
    func takesPlanes(_ options: EncodingOptions) -> Bool

    /// Encodes `planes` as `encode(_:options:)` encodes an RGBA image, taking from `metadata` (an image of the
    /// same size) what is written beside the pixels: orientation, copyright notice, a kept profile.
    func encode(_ planes: YCbCrPlanes, metadata: Image, options: EncodingOptions) throws -> Data
}
