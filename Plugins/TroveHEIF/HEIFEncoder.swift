import CHEIF
import Foundation
import TroveCore

/// Encodes still images as HEIC through libheif's HEVC encoder (x265 in Debian's build): lossy 4:2:0 at
/// `EncodingOptions.quality`, BT.601 matrix, tagged sRGB. `lossless` is refused: libheif 1.15's RGB path
/// changes some samples by one even in x265's lossless mode (so does its own `heif-enc -L`). Alpha is
/// kept (an alpha plane is written only when some pixel is not opaque). An orientation the pipeline kept
/// (`Image.orientation` other than `.up`) is written as 'irot'/'imir' over the stored pixels
/// (`HEIFOrientationProperties`). Only the first frame of an animation is written. `TroveHEIFPlugin` registers
/// it only when `TroveHEIFPlugin.canEncode` is true.
package struct HEIFEncoder: ImageEncoder {
    /// The registry name, "heic".
    package let name = "heic"
    /// `.heic`.
    package let format = ImageFormat.heic
    /// The speed (0 slowest ... 8 fastest, x265's presets from veryslow to ultrafast) when
    /// `EncodingOptions.speed` is nil.
    package var defaultSpeed: Int

    /// - Parameter defaultSpeed: 5 is x265's "faster" preset: a server's encode time matters more than the
    ///   last few percent of file size.
    package init(defaultSpeed: Int = 5) {
        self.defaultSpeed = defaultSpeed
    }

    /// x265's presets, slowest first: `speed` picks one (clamped to 0...8).
    static let presets = [
        "veryslow", "slower", "slow", "medium", "fast", "faster", "veryfast", "superfast", "ultrafast"
    ]

    static func failure(_ reason: String) -> TroveError {
        TroveError.encodingFailed(format: .heic, reason: reason)
    }

    /// Encodes `image` (its first frame, if animated) with `options.quality` and `options.speed`.
    package func encode(_ image: Image, options: EncodingOptions) throws -> Data {
        guard !options.lossless else {
            throw Self.failure(
                "this libheif cannot write HEIC without loss (its RGB conversion rounds); use PNG or WebP lossless")
        }
        guard image.width > 0, image.height > 0, image.width <= 32_767, image.height <= 32_767 else {
            throw Self.failure("HEIC sides must be 1...32767 pixels; this image is \(image.width)x\(image.height)")
        }
        _ = Libheif.initialized
        guard let context = heif_context_alloc() else { throw Self.failure("out of memory starting libheif") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try Self.check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "finding x265")
        guard let encoder else { throw Self.failure("this libheif has no HEVC encoder") }
        defer { heif_encoder_release(encoder) }
        try configure(encoder, options)

        let pixels = image.frames.first?.pixels ?? image.convertedToRGBA8().pixels
        let input = try Self.heifImage(pixels, width: image.width, height: image.height)
        defer { heif_image_release(input) }
        guard let encoding = heif_encoding_options_alloc() else { throw Self.failure("out of memory for options") }
        defer { heif_encoding_options_free(encoding) }
        // One nclx 'colr' box saying sRGB (libheif 1.15 leaves it out by default, for macOS releases older
        // than 2021); the grid wrapper for odd sizes stays (those cannot read a 'clap' crop either).
        encoding.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        var nclx = heif_color_profile_nclx()
        nclx.version = 1
        nclx.color_primaries = heif_color_primaries_ITU_R_BT_709_5
        nclx.transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1
        nclx.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
        nclx.full_range_flag = 1
        if let icc = image.colorDescription?.embeddableProfile(for: .rgba8) {
            // A profile the colour stage kept goes in a 'colr' ICC box; readers take it over the nclx one.
            try icc.withUnsafeBytes { bytes in
                try Self.check(
                    heif_image_set_raw_color_profile(input, "prof", bytes.baseAddress, bytes.count),
                    "embedding the \(bytes.count)-byte ICC profile")
            }
        }
        try withUnsafeMutablePointer(to: &nclx) { profile in
            // libheif 1.15 takes primaries and transfer from the input image's profile, the matrix from here.
            try Self.check(heif_image_set_nclx_color_profile(input, profile), "tagging the image sRGB")
            encoding.pointee.output_nclx_profile = profile
            var handle: OpaquePointer?
            try Self.check(heif_context_encode_image(context, input, encoder, encoding, &handle), "encoding")
            defer { heif_image_handle_release(handle) }
            if let handle, let notice = image.copyright, let tiff = ExifBlock.tiff(for: notice) {
                // libheif writes the 4-byte offset to the TIFF header that HEIF's Exif item starts with.
                try tiff.withUnsafeBytes { bytes in
                    try Self.check(
                        heif_context_add_exif_metadata(context, handle, bytes.baseAddress, Int32(bytes.count)),
                        "adding the copyright notice")
                }
            }
            if let handle, let notice = image.copyright, let packet = XMPRights.packet(for: notice) {
                try packet.withUnsafeBytes { bytes in
                    try Self.check(
                        heif_context_add_XMP_metadata(context, handle, bytes.baseAddress, Int32(bytes.count)),
                        "adding the copyright notice's XMP packet")
                }
            }
        }
        let file = try Self.write(context)
        guard image.orientation != .up else { return file }
        // An orientation the pipeline kept (the stored pixels) becomes 'irot' and 'imir', which readers apply;
        // added to the written file because libheif's own option gets 'ispe' wrong (HEIFOrientationProperties).
        return Data(try HEIFOrientationProperties.adding(image.orientation, to: Array(file)))
    }

    /// Quality and the preset on x265; its log stays quiet.
    private func configure(_ encoder: OpaquePointer, _ options: EncodingOptions) throws {
        _ = heif_encoder_set_logging_level(encoder, 0)
        let quality = options.quality.isFinite ? min(max(options.quality, 0), 1) : 0.85
        try Self.check(heif_encoder_set_lossy_quality(encoder, Int32((quality * 100).rounded())), "setting quality")
        let speed = min(max(options.speed ?? defaultSpeed, 0), Self.presets.count - 1)
        try Self.check(heif_encoder_set_parameter_string(encoder, "preset", Self.presets[speed]), "setting the preset")
    }

    /// The pixels as a libheif image: interleaved RGBA when some pixel is not opaque, else RGB.
    private static func heifImage(_ pixels: [UInt8], width: Int, height: Int) throws -> OpaquePointer {
        let hasAlpha = stride(from: 3, to: width * height * 4, by: 4).contains { pixels[$0] != 255 }
        let channels = hasAlpha ? 4 : 3
        var created: OpaquePointer?
        try check(
            heif_image_create(
                Int32(width), Int32(height), heif_colorspace_RGB,
                hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &created),
            "making the input image")
        guard let image = created else { throw failure("making the input image: libheif returned none") }
        do {
            try check(
                heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8),
                "allocating \(width)x\(height) pixels")
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
                throw failure("allocating \(width)x\(height) pixels: no plane")
            }
            pixels.withUnsafeBufferPointer { source in
                for y in 0..<height {
                    let row = plane + y * Int(stride), from = y * width * 4
                    for x in 0..<width {
                        for c in 0..<channels { row[x * channels + c] = source[from + x * 4 + c] }
                    }
                }
            }
        } catch {
            heif_image_release(image)
            throw error
        }
        return image
    }

    /// The context's file, collected through libheif's writer callback.
    private static func write(_ context: OpaquePointer) throws -> Data {
        final class Sink { var data = Data() }
        let sink = Sink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, bytes, count, userdata in
            if let bytes, let userdata {
                Unmanaged<Sink>.fromOpaque(userdata).takeUnretainedValue().data.append(
                    bytes.assumingMemoryBound(to: UInt8.self), count: count)
            }
            return heif_error(
                code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: trove_heif_success_message)
        }
        try withExtendedLifetime(sink) {
            try check(
                heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()), "writing the file")
        }
        return sink.data
    }

    private static func check(_ error: heif_error, _ step: String) throws {
        guard error.code != heif_error_Ok else { return }
        throw failure("\(step): \(Libheif.message(error))")
    }
}
