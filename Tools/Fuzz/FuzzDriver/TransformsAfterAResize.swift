import TroveCore
import TroveTransformers

/// The transforms a fuzzed request may run after its resize, one list each: every standard transformer that
/// changes pixels or size differently. The request targets weigh them against running nothing after.
public let transformsAfterAResize: [[any ImageTransformer]] = [
    [CropTransformer(width: 24, height: 24)],
    [RotateTransformer(.clockwise90)],
    [FlipTransformer(.h)],
    [GrayscaleTransformer()],
    [BlurTransformer(sigma: 1.5)],
    [SharpenTransformer(sigma: 1)],
    [RoundedCornersTransformer(radius: 6)],
    [TrimTransformer(threshold: 10)],
    [PaddingTransformer(top: 2, right: 3, bottom: 4, left: 5)],
    [ResizeTransformer(width: 8, height: 8, mode: .fill, filter: .lanczos3)]
]
