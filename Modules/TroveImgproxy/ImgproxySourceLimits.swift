import Trove

/// imgproxy's security options, which a URL may set only when the server allows them: limits tighter
/// (or looser, within the server's own) for one request.
package struct ImgproxySourceLimits: Sendable, Equatable {
    /// `max_src_resolution`/`msr` in megapixels.
    package var maxSourceResolution: Double?
    /// `max_src_file_size`/`msfs` in bytes.
    package var maxSourceFileSize: Int?
    /// `max_animation_frames`/`maf`.
    package var maxAnimationFrames: Int?
    /// `max_animation_frame_resolution`/`mafr` in megapixels.
    package var maxAnimationFrameResolution: Double?
    /// `max_result_dimension`/`mrd`: the result is scaled down to fit this many pixels a side.
    package var maxResultDimension: Int?

    /// No limits beyond the server's.
    package init() {}

    /// Whether any limit checked on the decoded source is set.
    var isSet: Bool {
        maxSourceResolution != nil || maxAnimationFrames != nil || maxAnimationFrameResolution != nil
    }
}

/// Refuses a decoded source over the URL's security limits with imgproxy's 422, after keeping only the first
/// `maf` frames of a longer animation (as imgproxy does; one kept frame is a still). The server's own limits
/// are checked before decoding; these run on the decoded image, first.
struct SourceLimitCheck: ImageTransformer {
    let limits: ImgproxySourceLimits

    var identifier: String {
        "imgproxy.limits(msr=\(limits.maxSourceResolution.map { "\($0)" } ?? "-"),"
            + "maf=\(limits.maxAnimationFrames.map { "\($0)" } ?? "-"),"
            + "mafr=\(limits.maxAnimationFrameResolution.map { "\($0)" } ?? "-"))"
    }

    func transform(_ image: Image) throws -> Image {
        var image = image
        if let most = limits.maxAnimationFrames, image.frames.count > most {
            // `pixels` is already the first frame, which a still keeps.
            image.frames = most > 1 ? Array(image.frames.prefix(most)) : []
        }
        let megapixels = Double(image.width) * Double(image.height) / 1_000_000
        let frames = max(image.frames.count, 1)
        if let most = limits.maxSourceResolution, megapixels * Double(frames) > most {
            throw Self.refusal(
                "the source has \(megapixels * Double(frames)) megapixels, over the URL's limit of \(most)")
        }
        if let most = limits.maxAnimationFrameResolution, !image.frames.isEmpty, megapixels > most {
            throw Self.refusal("each animation frame has \(megapixels) megapixels, over the URL's limit of \(most)")
        }
        return image
    }

    private static func refusal(_ message: String) -> ImgproxyURLError {
        ImgproxyURLError(status: 422, message: message)
    }
}
