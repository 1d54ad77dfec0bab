import ArgumentParser
import Foundation
import Trove

struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode local image files with the registry and report what they hold.")

    @OptionGroup var common: CommonOptions

    @Argument(help: "Image files (the format is sniffed from the bytes, never the extension).")
    var files: [String]

    @Option(help: "Write the first frame as raw 8-bit RGBA rows here (a directory when several files are given).")
    var rgba: String?

    @OptionGroup var orientation: OrientationArgument

    func run() async throws {
        let registry = try TroveRegistry.make()
        let configuration = try common.pipelineConfiguration()
        let outputs = try rgbaPaths()
        var failures = 0
        for (index, file) in files.enumerated() {
            do {
                let (decoded, rest) = try Self.decode(
                    file: file, registry: registry, for: orientation.transformsAsRun([]), configuration: configuration)
                let image = try decoded.transformed(by: rest, keepsColorProfile: false)
                if let output = outputs[index] {
                    try Self.write(Data(image.convertedToRGBA8().pixels), to: output)
                }
                let report = DecodeReport(
                    file: file, format: image.sourceFormat.rawValue, width: image.width,
                    height: image.height, frames: max(1, image.frames.count), orientation: decoded.orientation.rawValue)
                if common.json {
                    printJSONLine(report)
                } else {
                    print("\(file): \(report.format) \(report.width)x\(report.height), \(report.frames) frame(s)")
                }
            } catch {
                failures += 1
                let message = (error as? TroveError)?.description ?? String(describing: error)
                printError("trove decode: \(message)")
                if common.json { printJSONLine(["file": file, "error": message]) }
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// Reads and decodes one file; a recognised format without a decoder gets its own error.
    static func decode(file: String, registry: PluginRegistry, configuration: PipelineConfiguration) throws -> Image {
        try decode(file: file, registry: registry, for: [], configuration: configuration).image
    }

    /// Reads and decodes one file for `transforms`: at a reduced size when they start by shrinking, with
    /// the transforms to run on that image (see `ImageDecoder.decode(_:limits:for:)`). The decoding limits
    /// and the reducing gap are `configuration`'s (the `--config` file's, or the defaults). With
    /// `keepsColorProfile` the pixels keep their ICC profile instead of becoming sRGB; with `keepsCopyright`
    /// the image carries the file's copyright notice.
    static func decode(
        file: String, registry: PluginRegistry, for transforms: [any ImageTransformer],
        configuration: PipelineConfiguration, keepsColorProfile: Bool = false, keepsCopyright: Bool = true
    ) throws -> (image: Image, transforms: [any ImageTransformer]) {
        let url = URL(fileURLWithPath: file)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TroveError.ioFailed(path: file, reason: "cannot read the file (\(error.localizedDescription))")
        }
        guard let decoder = registry.decoder(for: data) else {
            if let format = ImageFormat.wellKnown(sniffing: data) {
                throw TroveError.noDecoder(format: format, url: file)
            }
            throw TroveError.unsupportedFormat(url: file, firstBytes: Array(data.prefix(8)))
        }
        return try decoder.decode(
            data, limits: configuration.decodingLimits, for: transforms,
            reducingGap: configuration.shrinkOnLoadReducingGap, colorConverter: registry.colorConverter,
            keepsColorProfile: keepsColorProfile, keepsCopyright: keepsCopyright, logger: configuration.logger)
    }

    static func write(_ data: Data, to url: URL) throws {
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw TroveError.ioFailed(path: url.path, reason: error.localizedDescription)
        }
    }

    private func rgbaPaths() throws -> [URL?] {
        guard let rgba else { return files.map { _ in nil } }
        let target = URL(fileURLWithPath: rgba)
        if files.count == 1 { return [target] }
        do {
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        } catch {
            throw ValidationError(
                "--rgba \(rgba) must be a directory when several files are given: "
                    + error.localizedDescription)
        }
        return files.enumerated().map { index, file in
            target.appendingPathComponent("\(index)-\(URL(fileURLWithPath: file).lastPathComponent).rgba")
        }
    }
}

/// One `trove decode --json` line.
struct DecodeReport: Encodable {
    let file: String
    let format: String
    let width: Int
    let height: Int
    let frames: Int
    /// The source's orientation (1...8, EXIF's numbering) as stored; `width` and `height` are as displayed
    /// unless `--keep-orientation` was given.
    let orientation: Int
}
