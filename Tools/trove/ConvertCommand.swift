import ArgumentParser
import Foundation
import Trove

struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode a local image, transform it and encode it to another file.")

    @OptionGroup var common: CommonOptions

    @Argument(help: "The image to read.")
    var input: String

    @Argument(help: "Where to write the result.")
    var output: String

    @Option(help: "Transform spec, e.g. resize:w=200,h=200,mode=fit|grayscale")
    var transform: String?

    @OptionGroup var encoding: EncodingArguments

    @Flag(
        help: """
            Keep the source's ICC profile, embedded in the output, instead of converting to sRGB \
            (CMYK sources are still converted).
            """)
    var keepColorProfile = false

    @Flag(help: "Leave out the source's EXIF copyright notice (Copyright and Artist), which is kept by default.")
    var dropCopyright = false

    func run() async throws {
        let registry = try TroveRegistry.make()
        let configuration = try common.pipelineConfiguration()
        let transforms: [any ImageTransformer]
        let encoder: any ImageEncoder
        do {
            transforms = try transform.map { try registry.transformers(forSpec: $0) } ?? []
            encoder = try EncodingArguments.encoder(for: outputFormat(registry: registry), in: registry)
        } catch let error as TroveError {
            throw ValidationError(error.description)
        }
        do {
            let decoded = try DecodeCommand.decode(
                file: input, registry: registry, for: transforms, configuration: configuration,
                keepsColorProfile: keepColorProfile, keepsCopyright: !dropCopyright)
            let image = try decoded.image.transformed(by: decoded.transforms, keepsColorProfile: keepColorProfile)
            var options = configuration.encodingOptions
            encoding.apply(to: &options)
            let data = try encoder.encode(image, options: options)
            try DecodeCommand.write(data, to: URL(fileURLWithPath: output))
            let report = ConvertReport(
                width: image.width, height: image.height, format: encoder.format.rawValue,
                bytes: data.count)
            if common.json {
                printJSONLine(report)
            } else {
                print("\(output): \(report.format) \(report.width)x\(report.height), \(report.bytes) B")
            }
        } catch {
            printError("trove convert: \((error as? TroveError)?.description ?? String(describing: error))")
            throw ExitCode(1)
        }
    }

    /// --format when given, else the output's extension when an encoder writes it, else PNG.
    private func outputFormat(registry: PluginRegistry) -> ImageFormat {
        if let format = encoding.format { return format }
        let byExtension = ImageFormat(fileExtension: URL(fileURLWithPath: output).pathExtension)
        return registry.encodableFormats.contains(byExtension) ? byExtension : .png
    }
}

/// One `trove convert --json` line.
struct ConvertReport: Encodable {
    let width: Int
    let height: Int
    let format: String
    let bytes: Int
}
