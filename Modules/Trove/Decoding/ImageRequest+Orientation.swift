import TroveCore
import TroveTransformers

extension ImageRequest {
    /// The transforms a pipeline runs for this request: `orient` first (`OrientTransformer.upright`), unless
    /// the request keeps the stored orientation. A request without transforms is turned upright too; its
    /// bytes stay the source's own, which carry the orientation.
    var transformsAsRun: [any ImageTransformer] {
        OrientTransformer.upright(transforms, keepsStoredOrientation: options.contains(.keepsStoredOrientation))
    }
}
