/// Decoded pixels in contiguous rows, plus what the decoder learned about the source.
public struct Image: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// How one pixel of `pixels` is laid out (animation frames are always RGBA8).
    public var pixelFormat: PixelFormat
    /// Bytes from the start of one row to the next: at least `width * pixelFormat.bytesPerPixel`.
    public var bytesPerRow: Int
    /// `height * bytesPerRow` bytes, rows top to bottom.
    public var pixels: [UInt8]
    /// The format it was decoded from; `.unknown` for pixels made in memory.
    public var sourceFormat: ImageFormat
    /// Every frame of an animated image, composed to full size; empty for a still image.
    public var frames: [AnimationFrame]
    /// The EXIF orientation the decoder found. The pixels stay as stored until an `orient` transform applies it.
    public var orientation: ExifOrientation
    /// How many times an animation plays; 0 means forever. Ignored for a still image.
    public var loopCount: Int
    /// What the source said about its colours (ICC profile, CICP, PNG gamma); `nil` means sRGB or unknown.
    /// The colour stage converts the pixels to sRGB and clears it, or leaves both for an encoder to embed.
    public var colorDescription: ColorDescription?
    /// The source's copyright notice (EXIF, XMP and IPTC-IIM rights fields), which encoders write back; nil
    /// for none.
    public var copyright: CopyrightNotice?

    /// An image over `pixels`; `bytesPerRow` defaults to tightly packed rows. Traps when a dimension is negative,
    /// `bytesPerRow` is shorter than a row, or `pixels` holds fewer than `height` rows.
    public init(
        width: Int, height: Int, pixelFormat: PixelFormat = .rgba8, bytesPerRow: Int? = nil,
        pixels: [UInt8], sourceFormat: ImageFormat = .unknown, frames: [AnimationFrame] = [],
        orientation: ExifOrientation = .up, loopCount: Int = 0, colorDescription: ColorDescription? = nil,
        copyright: CopyrightNotice? = nil
    ) {
        let rowBytes = bytesPerRow ?? width * pixelFormat.bytesPerPixel
        precondition(width >= 0 && height >= 0, "image dimensions must not be negative")
        precondition(rowBytes >= width * pixelFormat.bytesPerPixel, "bytesPerRow is shorter than a row")
        precondition(pixels.count >= rowBytes * height, "pixel buffer is shorter than height * bytesPerRow")
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = rowBytes
        self.pixels = pixels
        self.sourceFormat = sourceFormat
        self.frames = frames
        self.orientation = orientation
        self.loopCount = loopCount
        self.colorDescription = colorDescription
        self.copyright = copyright
    }

    /// Bytes this image holds in memory: what the memory cache charges for it. Buffers are counted by
    /// capacity, as allocated, and a frame that shares the image's buffer (an animation's last frame does)
    /// once.
    package var cost: Int {
        let shared = pixels.withUnsafeBufferPointer { $0.baseAddress }
        var total = pixels.capacity + (colorDescription?.iccProfile?.capacity ?? 0)
        for frame in frames where frame.pixels.withUnsafeBufferPointer({ $0.baseAddress }) != shared {
            total += frame.pixels.capacity
        }
        return total
    }

    /// This image as straight-alpha RGBA8 with tightly packed rows (a copy only when needed).
    public func convertedToRGBA8() -> Image {
        if pixelFormat == .rgba8 && bytesPerRow == width * 4 { return self }
        var out = [UInt8](repeating: 255, count: width * height * 4)
        let bpp = pixelFormat.bytesPerPixel
        for y in 0..<height {
            for x in 0..<width {
                let s = y * bytesPerRow + x * bpp
                let d = (y * width + x) * 4
                switch pixelFormat {
                case .rgba8:
                    out[d] = pixels[s]; out[d + 1] = pixels[s + 1]; out[d + 2] = pixels[s + 2];
                    out[d + 3] = pixels[s + 3]
                case .gray8:
                    out[d] = pixels[s]; out[d + 1] = pixels[s]; out[d + 2] = pixels[s]
                }
            }
        }
        return Image(
            width: width, height: height, pixelFormat: .rgba8, pixels: out, sourceFormat: sourceFormat,
            frames: frames, orientation: orientation, loopCount: loopCount, colorDescription: colorDescription,
            copyright: copyright)
    }
}

/// One frame of an animation: full-size RGBA8 pixels and how long it shows.
public struct AnimationFrame: Sendable, Equatable {
    /// The whole frame as tightly packed RGBA8 rows: `width * height * 4` bytes of the image it belongs to.
    public var pixels: [UInt8]
    /// How long the frame shows before the next one.
    public var delay: Duration

    /// A frame of composed RGBA8 pixels shown for `delay`.
    public init(pixels: [UInt8], delay: Duration) {
        self.pixels = pixels
        self.delay = delay
    }
}
