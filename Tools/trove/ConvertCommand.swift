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

    @Flag(
        help: """
            Leave out the source's copyright notice (EXIF Copyright and Artist, XMP and IPTC rights fields), \
            which is kept by default.
            """)
    var dropCopyright = false

    @OptionGroup var orientation: OrientationArgument

    @Option(
        help: ArgumentHelp(
            "Decode, transform and encode this many times in this process and report the seconds taken "
                + "(scripts/serve-bench's floor: the work of a request without HTTP).",
            valueName: "N"))
    var `repeat` = 1

    func validate() throws {
        guard `repeat` >= 1 else { throw ValidationError("--repeat must be 1 or more, not \(`repeat`)") }
    }

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
            var options = configuration.encodingOptions
            encoding.apply(to: &options)
            let clock = ContinuousClock()
            let start = clock.now
            var image: Image
            var data: Data
            var round = 0
            repeat {
                let decoded = try DecodeCommand.decode(
                    file: input, registry: registry, for: orientation.transformsAsRun(transforms),
                    configuration: configuration,
                    keepsColorProfile: keepColorProfile, keepsCopyright: !dropCopyright)
                image = try decoded.image.transformed(by: decoded.transforms, keepsColorProfile: keepColorProfile)
                data = try encoder.encode(image, options: options)
                round += 1
            } while round < `repeat`
            let elapsed = clock.now - start
            try DecodeCommand.write(data, to: URL(fileURLWithPath: output))
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let report = ConvertReport(
                width: image.width, height: image.height, format: encoder.format.rawValue,
                bytes: data.count, repeats: `repeat` > 1 ? `repeat` : nil, seconds: `repeat` > 1 ? seconds : nil)
            if common.json {
                printJSONLine(report)
            } else if `repeat` > 1 {
                print(
                    "\(output): \(report.format) \(report.width)x\(report.height), \(report.bytes) B; "
                        + "\(`repeat`) times in \(String(format: "%.3f", seconds)) s")
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
    /// With `--repeat`: how many times, and the seconds they took together.
    var repeats: Int?
    var seconds: Double?
}
