import TroveCore

/// A transform that returns an opaque image as it is, pixels, size and metadata: flattening onto a background
/// is one. After a resize it changes nothing for a source that has no alpha (a JPEG's YCbCr), so the planar
/// path (`PlanarRoute`) may leave it out.
package protocol OpaqueInvariantTransformer: ImageTransformer {}
