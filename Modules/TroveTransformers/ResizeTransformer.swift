import TroveCore

/// Resizes an image to a target size by mode (fit, fill, stretch) with a resampling filter.
///
/// Resampling is separable convolution in premultiplied alpha, so transparent areas do not leave
/// dark fringes. By default an image is never enlarged: fit and fill return an image that is
/// already no larger than the target unchanged, and stretch caps each axis at the source's size
/// (stretching 200x100 to 300x50 gives 200x50) unless `upscale` is true.
public struct ResizeTransformer: ImageTransformer, Equatable {
    /// How the target width and height are met when both are given; the raw value is the spec name (`mode=fill`).
    public enum Mode: String, Sendable, CaseIterable {
        /// The largest size inside the target box that keeps the aspect ratio.
        case fit
        /// Scale to cover the target box, then crop the centre to exactly its size.
        case fill
        /// Exactly the target size, ignoring the aspect ratio.
        case stretch
    }

    /// The resampling kernel; the raw value is the spec name (`filter=lanczos3`).
    public enum Filter: String, Sendable, CaseIterable {
        /// `nearest`: the nearest source pixel (blocky); `bilinear` (default): triangle, radius 1; `bicubic`:
        /// Catmull-Rom cubic, radius 2, as Pillow's; `lanczos3`: Lanczos with radius 3, the sharpest. Radii are in
        /// source pixels; except for `nearest` they widen by the reduction factor when shrinking, as in Pillow.
        case nearest, bilinear, bicubic, lanczos3
    }

    /// Largest width or height a resize accepts; larger values are clamped to it.
    package static let maximumDimension = 1 << 20

    /// Target width; nil follows the aspect ratio of `height`. Both nil leaves images unchanged.
    package let width: Int?
    /// Target height in pixels; nil follows the aspect ratio of `width`. Both nil leaves images unchanged.
    package let height: Int?
    /// How a width and height given together are met (default `.fit`); ignored when only one is given.
    package let mode: Mode
    /// The resampling filter (default `.bilinear`).
    package let filter: Filter
    /// Whether the output may be larger than the source (default false: it never is, on either axis).
    package let upscale: Bool

    /// Sizes below 1 are raised to 1 and sizes above `maximumDimension` lowered to it (the
    /// "resize" factory rejects such values with an error instead).
    public init(width: Int?, height: Int?, mode: Mode = .fit, filter: Filter = .bilinear, upscale: Bool = false) {
        self.width = width.map { min(max($0, 1), Self.maximumDimension) }
        self.height = height.map { min(max($0, 1), Self.maximumDimension) }
        self.mode = mode
        self.filter = filter
        self.upscale = upscale
    }

    /// "resize(w=W,h=H,mode=M,filter=F,upscale=U)", with "auto" for a missing width or height.
    public var identifier: String {
        let w = width.map(String.init) ?? "auto"
        let h = height.map(String.init) ?? "auto"
        return "resize(w=\(w),h=\(h),mode=\(mode.rawValue),filter=\(filter.rawValue),upscale=\(upscale))"
    }

    /// The size `transform` gives an image of this size.
    package func outputSize(forWidth sourceWidth: Int, height sourceHeight: Int) -> (width: Int, height: Int) {
        guard let plan = plan(sourceWidth: sourceWidth, sourceHeight: sourceHeight) else {
            return (sourceWidth, sourceHeight)
        }
        return (plan.outputWidth, plan.outputHeight)
    }

    /// The resized image and frames (RGBA8), or the image itself when the size would not change. Throws
    /// `imageTooLarge` when the output is over `DecodingLimits.default`.
    public func transform(_ image: Image) throws -> Image {
        guard let plan = plan(sourceWidth: image.width, sourceHeight: image.height) else { return image }
        return try Self.resample(image, plan: plan, filter: filter)
    }

    /// Carries out `plan` on every frame of `image`.
    static func resample(_ image: Image, plan: ResizePlan, filter: Filter) throws -> Image {
        try DecodingLimits.default.check(width: plan.outputWidth, height: plan.outputHeight)
        let source = image.convertedToRGBA8()
        let resampler = try Resampler(
            sourceWidth: source.width, sourceHeight: source.height, plan: plan,
            filter: filter)
        let pixels = resampler.resample(source.pixels)
        let frameBytes = source.width * source.height * 4
        let frames = try source.frames.enumerated().map { index, frame in
            // Frames come from a decoder; a malformed one must fail cleanly, not read out of bounds.
            guard frame.pixels.count == frameBytes else {
                throw TroveError.invalidConfiguration(
                    "animation frame \(index) holds \(frame.pixels.count) bytes, expected \(frameBytes) for "
                        + "\(source.width)x\(source.height) RGBA8; the decoder produced a malformed frame")
            }
            return AnimationFrame(pixels: resampler.resample(frame.pixels), delay: frame.delay)
        }
        return Image(
            width: plan.outputWidth, height: plan.outputHeight, pixelFormat: .rgba8, pixels: pixels,
            sourceFormat: source.sourceFormat, frames: frames, orientation: source.orientation)
    }

    /// How to get from the source size to the output size; nil when the image stays as it is.
    func plan(sourceWidth w0: Int, sourceHeight h0: Int) -> ResizePlan? {
        guard w0 > 0, h0 > 0 else { return nil }
        let plan: ResizePlan
        func whole(_ w: Int, _ h: Int) -> ResizePlan {
            .whole(width: w0, height: h0, outputWidth: w, outputHeight: h)
        }
        switch (width, height) {
        case (nil, nil):
            return nil
        case let (w?, nil):
            guard upscale || w < w0 else { return nil }
            plan = whole(w, max(1, roundedDivision(h0 * w, w0)))
        case let (nil, h?):
            guard upscale || h < h0 else { return nil }
            plan = whole(max(1, roundedDivision(w0 * h, h0)), h)
        case let (w?, h?):
            switch mode {
            case .stretch:
                // Without upscale each axis is capped at the source's size on its own: the rule of fit and
                // fill (never enlarge), applied per axis since stretch ignores the aspect ratio anyway.
                plan = upscale ? whole(w, h) : whole(min(w, w0), min(h, h0))
            case .fit:
                guard upscale || w < w0 || h < h0 else { return nil }
                // Compare w/w0 with h/h0 in integers: the smaller ratio decides the size.
                if w * h0 <= h * w0 {
                    plan = whole(w, max(1, roundedDivision(h0 * w, w0)))
                } else {
                    plan = whole(max(1, roundedDivision(w0 * h, h0)), h)
                }
            case .fill:
                if !upscale && (w > w0 || h > h0) {
                    // Covering would enlarge the image: keep its scale and crop what exceeds the box.
                    let outW = min(w, w0), outH = min(h, h0)
                    plan = ResizePlan(
                        box: .init(
                            x: Double((w0 - outW) / 2), y: Double((h0 - outH) / 2),
                            width: Double(outW), height: Double(outH)),
                        outputWidth: outW, outputHeight: outH)
                } else {
                    plan = ResizePlan(
                        box: Self.fillBox(sourceWidth: w0, sourceHeight: h0, width: w, height: h),
                        outputWidth: w, outputHeight: h)
                }
            }
        }
        let unchanged = plan == whole(w0, h0)
        return unchanged ? nil : plan
    }

    /// The centred region of the source with the target's aspect ratio, edges between pixels where they
    /// fall: Pillow's `ImageOps.fit` box, so fill resamples exactly that region instead of a rounded crop.
    static func fillBox(sourceWidth w0: Int, sourceHeight h0: Int, width w: Int, height h: Int) -> ResizePlan.Box {
        let sourceWidth = Double(w0), sourceHeight = Double(h0)
        let outputRatio = Double(w) / Double(h)
        if w * h0 == h * w0 {
            return .init(x: 0, y: 0, width: sourceWidth, height: sourceHeight)
        } else if w0 * h > w * h0 {
            // Wider than the target: full height, the middle of the width.
            let cropWidth = outputRatio * sourceHeight
            return .init(x: (sourceWidth - cropWidth) / 2, y: 0, width: cropWidth, height: sourceHeight)
        } else {
            let cropHeight = sourceWidth / outputRatio
            return .init(x: 0, y: (sourceHeight - cropHeight) / 2, width: sourceWidth, height: cropHeight)
        }
    }
}

/// `a / b` rounded to nearest (halves up), for non-negative `a` and positive `b`.
private func roundedDivision(_ a: Int, _ b: Int) -> Int {
    (2 * a + b) / (2 * b)
}
