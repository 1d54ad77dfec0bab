import ArgumentParser
import Trove

/// `--keep-orientation`: the one switch between the picture as displayed (the default) and as stored.
struct OrientationArgument: ParsableArguments {
    @Flag(
        help: """
            Keep the pixels as stored instead of turning them upright by the source's orientation (EXIF, or \
            AVIF/HEIC irot and imir), and write that orientation into the output so it still displays the same \
            (EXIF in JPEG, PNG and WebP; irot/imir in AVIF and HEIC). Sizes and boxes then apply to the stored \
            pixels.
            """)
    var keepOrientation = false

    /// `transforms` as they run: turned upright first unless the stored orientation is kept.
    func transformsAsRun(_ transforms: [any ImageTransformer]) -> [any ImageTransformer] {
        OrientTransformer.upright(transforms, keepsStoredOrientation: keepOrientation)
    }

    /// The request option this switch sets.
    var requestOptions: ImageRequest.Options { keepOrientation ? [.keepsStoredOrientation] : [] }
}
