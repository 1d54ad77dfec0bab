import Foundation
import FuzzDriver
import Trove
import TroveCore
import TroveTransformers

// Which request an input runs, drawn from a hash of its bytes (`InputChoices`): the output format, a lossy one that
// takes planes most often so that still YCbCr JPEGs take the planar route; a leading `orient`, the implicit one or the
// stored orientation kept; one shrinking resize; and sometimes a transform after it, which sends the result the RGBA
// way.

/// JPEG, WebP or AVIF six times in seven: the planar route needs one of them. AVIF once, as it is slow to encode.
private let outputFormats: [ImageFormat] = [.jpeg, .jpeg, .jpeg, .jpeg, .png, .webp, .avif]

/// Shrinking resizes of every mode and the filters the planar resampler takes, odd sizes and 1x1 among them.
private let resizes: [ResizeTransformer] = [
    ResizeTransformer(width: 64, height: 64, mode: .fit, filter: .lanczos3),
    ResizeTransformer(width: 64, height: 64, mode: .fit, filter: .lanczos3),
    ResizeTransformer(width: 64, height: 64, mode: .fill, filter: .bicubic),
    ResizeTransformer(width: 64, height: 64, mode: .stretch, filter: .bilinear),
    ResizeTransformer(width: 63, height: 47, mode: .fit, filter: .bicubic),
    ResizeTransformer(width: 47, height: 63, mode: .fill, filter: .lanczos3),
    ResizeTransformer(width: 33, height: nil, mode: .fit, filter: .bilinear),
    ResizeTransformer(width: nil, height: 17, mode: .fit, filter: .lanczos3),
    ResizeTransformer(width: 5, height: 3, mode: .stretch, filter: .bicubic),
    ResizeTransformer(width: 1, height: 1, mode: .fit, filter: .lanczos3),
    ResizeTransformer(width: 1, height: 1, mode: .fill, filter: .bilinear)
]

/// What may follow the resize: nothing most often (12 in 22), else one of the standard transformers.
private let followers: [[any ImageTransformer]] = Array(repeating: [], count: 12) + transformsAfterAResize

/// The encoder settings: the pipeline's mostly, else a low or a top quality.
private let encodings: [EncodingOptions?] = [
    nil, nil, nil, EncodingOptions(quality: 0.5), EncodingOptions(quality: 1, compressionLevel: 1)
]

/// The request `data` runs, fetched from `url`.
func pipelineRequest(for data: Data, url: URL) -> ImageRequest {
    var choices = InputChoices(data)
    let resize = choices.pick(from: resizes)
    var transforms: [any ImageTransformer] = [resize] + choices.pick(from: followers)
    var options: ImageRequest.Options = []
    switch choices.pick(4) {
    case 0: transforms.insert(OrientTransformer(), at: 0)
    case 1: options.insert(.keepsStoredOrientation)
    default: break  // the pipeline puts `orient` first itself
    }
    if choices.pick(4) == 0 { options.insert(.keepsColorProfile) }
    if choices.pick(4) == 0 { options.insert(.dropsCopyright) }
    return ImageRequest(
        url: url, transforms: transforms, options: options, outputFormat: choices.pick(from: outputFormats),
        encodingOptions: choices.pick(from: encodings))
}

/// A request as one line, for TROVE_FUZZ_DESCRIBE and the message of a failed check.
func describe(_ request: ImageRequest) -> String {
    let transforms = request.transforms.map(\.identifier).joined(separator: ", ")
    return "[\(transforms)] to \(request.outputFormat?.rawValue ?? "source"), options \(request.options.rawValue)"
        + ", encoding \(request.encodingOptions?.identifier ?? "default")"
}
