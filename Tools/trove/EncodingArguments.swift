import ArgumentParser
import Trove

extension ImageFormat: ExpressibleByArgument {
    /// A format by name or file extension ("jpg" is jpeg); whether an encoder exists is checked at run time.
    public init?(argument: String) {
        guard !argument.isEmpty else { return nil }
        self.init(fileExtension: argument)
    }
}

/// How a command encodes its result: `--format`, `--quality`, `--lossless`, `--speed`.
struct EncodingArguments: ParsableArguments {
    @Option(
        help: "Output format: any format a registered encoder writes (png, jpeg, webp, avif, ...; see `trove plugins`)."
    )
    var format: ImageFormat?

    @Option(help: "Lossy quality, 0...100 (default 85).")
    var quality: Double?

    @Flag(help: "Encode without loss where the format can (WebP).")
    var lossless = false

    @Option(
        help: ArgumentHelp(
            "Encoder speed where the format has one: AVIF 0 (smallest files) ... 10 (fastest), HEIC 0...8 "
                + "(default: the encoder's, AVIF 8)."))
    var speed: Int?

    func validate() throws {
        if let quality, !(0...100).contains(quality) {
            throw ValidationError("--quality must be 0...100, got \(quality)")
        }
        if let speed, !(0...10).contains(speed) {
            throw ValidationError("--speed must be 0...10, got \(speed)")
        }
    }

    /// The options given, on the defaults.
    var options: EncodingOptions {
        var options = EncodingOptions()
        apply(to: &options)
        return options
    }

    /// Sets what was given: the quality, the speed, and lossless when asked for.
    func apply(to options: inout EncodingOptions) {
        if let quality { options.quality = quality / 100 }
        if let speed { options.speed = speed }
        if lossless { options.lossless = true }
    }

    /// The registry's encoder for `format`, or a usage error that lists the formats that can be written.
    static func encoder(for format: ImageFormat, in registry: PluginRegistry) throws -> any ImageEncoder {
        do {
            return try registry.encoder(for: format)
        } catch {
            let known = registry.encodableFormats.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("no encoder writes format '\(format)'; formats with an encoder: \(known)")
        }
    }
}
