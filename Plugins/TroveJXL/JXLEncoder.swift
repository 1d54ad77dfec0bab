import CJXL
import Foundation
import TroveCore

/// Encodes images as JPEG XL through libjxl: lossy (VarDCT at a Butteraugli distance from
/// `EncodingOptions.quality`) or lossless (`EncodingOptions.lossless`). Alpha is kept (an alpha channel is
/// written only when some pixel is not opaque). An image with two or more frames becomes an animation with
/// each frame's delay, to the millisecond, and its loop count. The EXIF orientation is written to the
/// header, so a viewer shows the image as the source meant; the colours are tagged sRGB, or with the
/// image's ICC profile when it carries one. Its copyright notice goes in the container's Exif and "xml " (XMP)
/// boxes.
package struct JXLEncoder: ImageEncoder {
    /// The registry name, "jxl".
    package let name = "jxl"
    /// `.jxl`, stills and animations alike.
    package let format = ImageFormat.jxl
    /// libjxl's effort (1 fastest ... 9 slowest) when `EncodingOptions.speed` is nil.
    package var defaultEffort: Int
    /// Threads libjxl may use for one encode.
    package var maxThreads: Int

    /// - Parameters:
    ///   - defaultEffort: 5 suits a server: on the 600x400 coffee photo (cjxl 0.7, two threads) lossy distance
    ///     1.45 encodes 1.4x as fast as libjxl's default effort 7 for a file 0.3% smaller and 0.16 dB lower,
    ///     and lossless 1.7x as fast for a file 1.2% larger.
    ///   - maxThreads: threads for one encode; 2 keeps concurrent encodes from oversubscribing the cores.
    package init(defaultEffort: Int = 5, maxThreads: Int = 2) {
        self.defaultEffort = defaultEffort
        self.maxThreads = maxThreads
    }

    /// Ticks per second of an animation: milliseconds, as WebP's and AVIF's delays.
    static let ticksPerSecond: UInt32 = 1000

    /// The Butteraugli distance for a quality 0...1 (clamped): cjxl's mapping from its `-q` 0...100, so
    /// quality 0.85 writes what `cjxl -q 85` does (distance 1.45), 0.9 is distance 1 ("visually lossless"),
    /// 1 is 0.1; below 0.3 the distance grows faster, to libjxl's most, 25, at 0.04 and under.
    static func distance(forQuality quality: Double) -> Float {
        let q = (quality.isFinite ? min(max(quality, 0), 1) : 0.85) * 100
        let distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25
        return Float(min(max(distance, 0.1), 25))
    }

    /// libjxl's effort for `EncodingOptions.speed` (0 slowest ... 10 fastest, as for AVIF): `10 - speed`,
    /// kept to 1...9, so speed 3 is libjxl's default effort 7.
    static func effort(forSpeed speed: Int) -> Int {
        min(max(10 - speed, 1), 9)
    }

    /// Encodes `image` (every frame, when it has two or more) with `options.quality` (or `lossless`) and
    /// `options.speed`; `compressionLevel` does not apply.
    package func encode(_ image: Image, options: EncodingOptions) throws -> Data {
        // JPEG XL allows up to 2^30 per side; libjxl's level-5 profile (the one every decoder must handle)
        // stops at 2^18, which is what libjxl writes without asking for level 10.
        guard image.width > 0, image.height > 0, image.width <= 1 << 18, image.height <= 1 << 18 else {
            throw Self.failure("JPEG XL sides must be 1...262144 pixels; this image is \(image.width)x\(image.height)")
        }
        let frames = try Self.frames(of: image)
        let hasAlpha = frames.contains { frame in
            stride(from: 3, to: frame.pixels.count, by: 4).contains { frame.pixels[$0] != 255 }
        }
        guard let encoder = JxlEncoderCreate(nil) else { throw Self.failure("out of memory starting libjxl") }
        defer { JxlEncoderDestroy(encoder) }
        let pool = JXLThreadPool(threads: maxThreads)
        guard pool.attach(encoder: encoder) else { throw Self.failure("libjxl refused its thread pool") }
        let animated = frames.count > 1

        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(image.width)
        info.ysize = UInt32(image.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.num_extra_channels = hasAlpha ? 1 : 0
        info.alpha_bits = hasAlpha ? 8 : 0
        // Lossless must keep the RGB samples; lossy works in XYB.
        info.uses_original_profile = options.lossless ? JXL_TRUE : JXL_FALSE
        info.orientation = JxlOrientation(UInt32(image.orientation.rawValue))
        if animated {
            info.have_animation = JXL_TRUE
            info.animation.tps_numerator = Self.ticksPerSecond
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(clamping: max(image.loopCount, 0))
        }
        try Self.check(JxlEncoderSetBasicInfo(encoder, &info), encoder, "setting the header")
        try Self.setColor(image.colorDescription, encoder)
        if let notice = image.copyright {
            // The notice goes in boxes of the container: Exif (a zero offset to the TIFF header, then it) and
            // "xml " (the XMP packet), both uncompressed.
            let boxes = [
                ("Exif", ExifBlock.tiff(for: notice).map { [0, 0, 0, 0] + $0 }), ("xml ", XMPRights.packet(for: notice))
            ].compactMap { type, box in box.map { (type, $0) } }
            if !boxes.isEmpty { try Self.check(JxlEncoderUseBoxes(encoder), encoder, "asking for metadata boxes") }
            for (type, box) in boxes {
                try Self.check(
                    JxlEncoderAddBox(encoder, type, box, box.count, JXL_FALSE), encoder,
                    "adding the copyright notice's \(type) box")
            }
        }

        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw Self.failure("out of memory for libjxl's frame settings")
        }
        let effort = options.speed.map(Self.effort(forSpeed:)) ?? min(max(defaultEffort, 1), 9)
        try Self.check(
            JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)), encoder,
            "setting effort \(effort)")
        if options.lossless {
            try Self.check(JxlEncoderSetFrameLossless(settings, JXL_TRUE), encoder, "asking for lossless")
        } else {
            let distance = Self.distance(forQuality: options.quality)
            try Self.check(JxlEncoderSetFrameDistance(settings, distance), encoder, "setting distance \(distance)")
        }

        var format = JxlPixelFormat(
            num_channels: hasAlpha ? 4 : 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        for (index, frame) in frames.enumerated() {
            if animated {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                header.duration = Self.ticks(frame.delay)
                try Self.check(JxlEncoderSetFrameHeader(settings, &header), encoder, "timing frame \(index + 1)")
            }
            // Without alpha the fourth byte of every pixel is dropped: libjxl is given RGB.
            let samples = hasAlpha ? frame.pixels : Self.rgb(frame.pixels)
            let status = samples.withUnsafeBytes {
                JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count)
            }
            try Self.check(status, encoder, animated ? "adding frame \(index + 1)" : "adding the image")
        }
        JxlEncoderCloseInput(encoder)
        return try Self.output(encoder)
    }

    static func failure(_ reason: String) -> TroveError {
        TroveError.encodingFailed(format: .jxl, reason: reason)
    }

    /// Throws libjxl's error for a failed `step`.
    private static func check(_ status: JxlEncoderStatus, _ encoder: OpaquePointer, _ step: String) throws {
        guard status == JXL_ENC_SUCCESS else { throw failure("libjxl failed \(step): \(reason(encoder))") }
    }

    /// What `JxlEncoderGetError` says, in words.
    private static func reason(_ encoder: OpaquePointer) -> String {
        switch JxlEncoderGetError(encoder) {
        case JXL_ENC_ERR_OOM: "out of memory"
        case JXL_ENC_ERR_BAD_INPUT: "the pixels or settings are not valid for JPEG XL"
        case JXL_ENC_ERR_NOT_SUPPORTED: "a setting libjxl does not support"
        case JXL_ENC_ERR_API_USAGE: "libjxl's API was called out of order"
        case let code: "error \(code.rawValue)"
        }
    }

    /// Tags the colours: the image's ICC profile when it has one, else sRGB (what Trove's pixels are after
    /// the colour stage, or are assumed to be without one).
    private static func setColor(_ description: ColorDescription?, _ encoder: OpaquePointer) throws {
        if let profile = description?.embeddableProfile(for: .rgba8) {
            let status = profile.withUnsafeBufferPointer { JxlEncoderSetICCProfile(encoder, $0.baseAddress, $0.count) }
            try check(status, encoder, "embedding the \(profile.count)-byte ICC profile")
            return
        }
        var srgb = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&srgb, JXL_FALSE)
        try check(JxlEncoderSetColorEncoding(encoder, &srgb), encoder, "tagging the colours sRGB")
    }

    /// Collects the encoded file, growing the output buffer while libjxl has more to write.
    private static func output(_ encoder: OpaquePointer) throws -> Data {
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                guard let base = buffer.baseAddress else { return JXL_ENC_ERROR }
                var next: UnsafeMutablePointer<UInt8>? = base + written
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            switch status {
            case JXL_ENC_SUCCESS: return Data(output[..<written])
            case JXL_ENC_NEED_MORE_OUTPUT: output.append(contentsOf: repeatElement(0, count: output.count))
            default: throw failure("libjxl failed writing the file: \(reason(encoder))")
            }
        }
    }

    /// The RGBA8 frames to write: every frame of an animation, else the image itself.
    private static func frames(of image: Image) throws -> [AnimationFrame] {
        guard image.frames.count > 1 else {
            return [AnimationFrame(pixels: image.convertedToRGBA8().pixels, delay: .zero)]
        }
        let bytes = image.width * image.height * 4
        if let bad = image.frames.firstIndex(where: { $0.pixels.count != bytes }) {
            throw failure(
                "frame \(bad + 1) holds \(image.frames[bad].pixels.count) bytes, not \(bytes) "
                    + "(\(image.width)x\(image.height) RGBA8)")
        }
        return image.frames
    }

    /// RGBA8 without its alpha bytes.
    private static func rgb(_ rgba: [UInt8]) -> [UInt8] {
        let count = rgba.count / 4
        return [UInt8](unsafeUninitializedCapacity: count * 3) { buffer, initialized in
            for pixel in 0..<count {
                buffer[pixel * 3] = rgba[pixel * 4]
                buffer[pixel * 3 + 1] = rgba[pixel * 4 + 1]
                buffer[pixel * 3 + 2] = rgba[pixel * 4 + 2]
            }
            initialized = count * 3
        }
    }

    /// A frame's delay in milliseconds (rounded), within the header's 32 bits.
    private static func ticks(_ delay: Duration) -> UInt32 {
        let (seconds, attoseconds) = delay.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return UInt32(min(max(milliseconds.rounded(), 0), Double(UInt32.max)))
    }
}
