import Logging
import TroveCore

/// The colour stage: brings decoded pixels to sRGB through the registry's `ColorConverter`, on the image as
/// decoded and reduced, before any other transform but a leading shrink: a streamed resize's result
/// (`RowColorTap`) or a whole decode's (`convert(_:thenShrinking:)`) is converted instead of its source. A
/// description the converter cannot use is logged as a warning and the pixels are used as sRGB: a request
/// never fails for its colours. A stage that keeps profiles (`ImageRequest.Options.keepsColorProfile`) leaves
/// pixels with an RGB or gray ICC profile as they are, profile attached for the encoder to embed; CMYK and
/// profile-less descriptions (CICP, gamma) are still converted, as no output profile could describe them.
struct ColorStage: Sendable {
    let converter: any ColorConverter
    let logger: Logger
    var keepsProfiles = false

    /// The stage for one source, whose warnings name `source`.
    func forSource(_ source: String) -> ColorStage {
        var logger = logger
        logger[metadataKey: "url"] = "\(source)"
        return ColorStage(converter: converter, logger: logger, keepsProfiles: keepsProfiles)
    }

    /// This stage, keeping embeddable profiles when `keeps` is set.
    func keepingProfiles(_ keeps: Bool) -> ColorStage {
        var stage = self
        stage.keepsProfiles = keeps
        return stage
    }

    /// Whether the pixels under `description` stay as stored, the description with them: a stage that keeps
    /// profiles keeps an RGB or gray ICC profile the converter can use. A damaged one is treated as sRGB, as
    /// when converting (logged, dropped), so no encoder is handed a profile nothing can read: libjxl aborts the
    /// process on one it cannot link.
    func keeps(_ description: ColorDescription?, pixelFormat: PixelFormat) -> Bool {
        guard keepsProfiles, let description else { return false }
        return Self.keepable(description, pixelFormat: pixelFormat, converter: converter)
    }

    /// Whether a stage that keeps profiles keeps `description` over pixels of `pixelFormat`: an embeddable
    /// profile from which `converter` builds a transform (cached, so a profile seen again costs a lookup).
    static func keepable(
        _ description: ColorDescription, pixelFormat: PixelFormat, converter: any ColorConverter
    ) -> Bool {
        guard description.embeddableProfile(for: pixelFormat) != nil else { return false }
        do {
            _ = try converter.transformToSRGB(from: description, samples: .rgba8)
            return true
        } catch {
            return false
        }
    }

    /// What a decoder is handed to convert samples as it decodes them: CMYK, and 16-bit samples before they
    /// are rounded. It declines (nil) 16-bit samples under a profile this stage keeps.
    var decoderConverter: any ColorConverter {
        WarningColorConverter(wrapped: converter, logger: logger, keepsProfiles: keepsProfiles)
    }

    /// The transform for `description`, or nil when there is nothing to do or it cannot be used (logged).
    func transform(for description: ColorDescription?) -> (any ColorTransform)? {
        guard let description, !description.isEmpty else { return nil }
        return try? decoderConverter.transformToSRGB(from: description, samples: .rgba8)
    }

    /// Converts a decoded image to sRGB in place; an image without a description is left as it is.
    func convert(_ image: inout Image) {
        guard let description = image.colorDescription, !keeps(description, pixelFormat: image.pixelFormat)
        else { return }
        if let transform = transform(for: description) {
            transform.apply(to: &image)
        } else {
            image.colorDescription = nil
        }
    }
}

/// Logs why a description could not be used, then rethrows. A decoder's 16-bit samples under a profile the
/// stage keeps get no transform: they are rounded as stored.
private struct WarningColorConverter: ColorConverter {
    let wrapped: any ColorConverter
    let logger: Logger
    let keepsProfiles: Bool

    var name: String { wrapped.name }

    func transformToSRGB(from description: ColorDescription, samples: ColorSamples) throws -> (any ColorTransform)? {
        if samples == .rgba16BigEndian, keepsProfiles,
            ColorStage.keepable(description, pixelFormat: .rgba8, converter: wrapped)
        {
            return nil
        }
        do {
            return try wrapped.transformToSRGB(from: description, samples: samples)
        } catch {
            logger.warning("\(error)", metadata: ["converter": "\(wrapped.name)"])
            throw error
        }
    }
}
