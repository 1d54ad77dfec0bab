import Foundation
import FuzzDriver
import Logging
import TroveAVIF
import TroveCodec
import TroveColor
import TroveCore
import TroveHEIF
import TroveJPEG
import TroveJXL
import TroveRequestPath
import TroveTransformers
import TroveWebP

// What a request runs on the fetched bytes, fuzzed: the decoder the registry picks (every plugin installed,
// colour management on), the shrink-on-load decode for `orient` and a shrinking resize with the colour stage,
// the transforms the decode left, then the result encoded to one of the registry's formats and read back. The
// decoder-only targets never reach the colour stage, the reduced and streamed routes or the encoders; a 16-bit
// PNG under an ICC profile once trapped in release builds only there.
//
// Each input also picks its own variation from a hash of its bytes (keep the colour profile or convert, keep
// the stored orientation or turn upright, stream rows or decode whole, the reducing gap, the resize, a
// transform after it, the output format and its options), so one iteration runs one request and stays fast.
//
// What must hold: every step returns a well-formed image or throws a TroveError; a `fit` into a box stays
// inside it; an encoder that succeeds writes bytes the registry reads back at the same displayed size.

/// The registry `trove serve` runs with (`PluginRegistry.standard`'s decoders and encoder, then the plugins in
/// the CLI's order), minus what no decode touches (fetchers, caches, Redis). The threaded decoders and
/// encoders are registered again, in the same order, with one thread each: the fuzzer follows one thread.
private let registry: PluginRegistry = {
    var registry = PluginRegistry()
    do {
        try registry.register(decoder: PNGDecoder())
        try registry.register(decoder: GIFDecoder())
        try registry.register(encoder: PNGEncoder())
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveWebPPlugin())
        try registry.install(TroveAVIFPlugin())
        try registry.install(TroveJXLPlugin())
        try registry.install(TroveHEIFPlugin())
        try registry.install(TroveColorPlugin())
        try registry.register(decoder: AVIFDecoder(maxThreads: 1), replacing: true)
        try registry.register(encoder: AVIFEncoder(maxThreads: 1), replacing: true)
        try registry.register(decoder: JXLDecoder(maxThreads: 1), replacing: true)
        try registry.register(encoder: JXLEncoder(maxThreads: 1), replacing: true)
        try registry.register(decoder: HEIFDecoder(maxThreads: 0), replacing: true)
    } catch {
        fatalError("the fuzz registry is inconsistent: \(error)")
    }
    return registry
}()

/// Small enough that no input can exhaust memory under AddressSanitizer: 4 megapixels, 64 MiB decoded.
private let limits = DecodingLimits(maxPixels: 1 << 22, maxDecodedBytes: 1 << 26, maxFrames: 100)

/// The colour stage's warnings (every damaged profile makes one) would flood the fuzzer's output.
private let quietLogger = Logger(label: "trove.fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

/// Results larger than this (pixels, all frames) are not encoded: the encoders' cost grows with the area,
/// and a request's output is a thumbnail here.
private let largestEncodedArea = 64 * 64 * 8

/// The shrinking resizes a request may start with, `fit` into 64x64 with Lanczos most often.
private let resizes: [ResizeTransformer] = [
    ResizeTransformer(width: 64, height: 64, mode: .fit, filter: .lanczos3),
    ResizeTransformer(width: 64, height: 64, mode: .fit, filter: .lanczos3),
    ResizeTransformer(width: 64, height: 64, mode: .fit, filter: .lanczos3),
    ResizeTransformer(width: 64, height: 64, mode: .fill, filter: .bicubic),
    ResizeTransformer(width: 64, height: 64, mode: .stretch, filter: .bilinear),
    ResizeTransformer(width: 48, height: 32, mode: .fit, filter: .bilinear),
    ResizeTransformer(width: 16, height: nil, mode: .fit, filter: .lanczos3),
    ResizeTransformer(width: nil, height: 24, mode: .fit, filter: .nearest),
    ResizeTransformer(width: 1, height: 1, mode: .fit, filter: .lanczos3)
]

/// What may follow the resize: nothing half the time, else one of the standard transformers.
private let followers: [[any ImageTransformer]] = Array(repeating: [], count: 10) + transformsAfterAResize

/// One request as it was run, for the message of a failed check.
private struct RequestDescription: CustomStringConvertible {
    var decoder: String
    var transforms: [any ImageTransformer]
    var keepsProfile: Bool
    var streamsRows: Bool
    var reducingGap: Double
    var output = ""

    var description: String {
        "\(decoder) decode for [\(transforms.map(\.identifier).joined(separator: ", "))], keepsColorProfile "
            + "\(keepsProfile), streamsRows \(streamsRows), reducingGap \(reducingGap)\(output)"
    }
}

/// Checks that `image` is well formed: rows as long as its width, every row and frame present.
private func check(_ image: Image, after step: String, _ request: RequestDescription) {
    precondition(image.width > 0 && image.height > 0, "\(step) made a \(image.width)x\(image.height) image: \(request)")
    precondition(
        image.bytesPerRow >= image.width * image.pixelFormat.bytesPerPixel
            && image.pixels.count >= image.bytesPerRow * image.height,
        "\(step) made a short pixel buffer: \(request)")
    for frame in image.frames {
        precondition(frame.pixels.count == image.width * image.height * 4, "\(step) made a short frame: \(request)")
    }
}

/// Runs `step`; nil when it refused the input with a TroveError, the only failure a request may see.
private func attempt<T>(_ step: String, _ request: RequestDescription, _ body: () throws -> T) -> T? {
    do {
        return try body()
    } catch is TroveError {
        return nil
    } catch {
        preconditionFailure("\(step) threw something other than TroveError (\(error)): \(request)")
    }
}

/// The size `image` is shown at: its stored size, turned for an orientation that swaps the axes.
private func displayedSize(_ image: Image) -> (width: Int, height: Int) {
    image.orientation.swapsAxes ? (image.height, image.width) : (image.width, image.height)
}

/// How far the inputs got, printed at exit when TROVE_FUZZ_STATS is set: a run that never decodes or never
/// encodes fuzzes less than its execs per second suggest.
nonisolated(unsafe) private var progress: [String: Int] = [:]
/// The last step the current input reached.
nonisolated(unsafe) private var lastStep = ""

private func count(_ step: String) {
    progress[step, default: 0] += 1
    lastStep = step
}

/// TROVE_FUZZ_DESCRIBE: print each input's request and how far it got (to reproduce a finding outside the
/// fuzzer, run the target on the one input with it set).
private let describesRequests = ProcessInfo.processInfo.environment["TROVE_FUZZ_DESCRIBE"] != nil
/// TROVE_FUZZ_WRITE_INPUT=path: write the bytes the decoder is given (a PNG's CRCs repaired) to `path`, the
/// bytes to keep as a regression fixture.
private let inputCopyPath = ProcessInfo.processInfo.environment["TROVE_FUZZ_WRITE_INPUT"]

/// Runs one request on `data` when the registry's decoder for it reads one of `formats`.
private func runRequest(_ input: Data, formats: Set<ImageFormat>) {
    count("inputs")
    guard let decoder = registry.decoder(for: input), formats.contains(decoder.format) else { return }
    count("claimed")
    let data = decoder.format == .png ? repairingPNGChunkCRCs(input) : input
    if let inputCopyPath { _ = FileManager.default.createFile(atPath: inputCopyPath, contents: data) }
    var choices = InputChoices(input)
    let keepsProfile = choices.pick(2) == 0
    let keepsStoredOrientation = choices.pick(4) == 0
    let streamsRows = choices.pick(4) != 0
    let keepsCopyright = choices.pick(2) == 0
    let reducingGap = choices.pick(from: [2.0, 2.0, 1.0, 1.5, 3.0])
    let resize = choices.pick(from: resizes)
    let follower = choices.pick(from: followers)
    let transforms = OrientTransformer.upright(
        [resize] + follower, keepsStoredOrientation: keepsStoredOrientation)
    var request = RequestDescription(
        decoder: decoder.name, transforms: transforms, keepsProfile: keepsProfile, streamsRows: streamsRows,
        reducingGap: reducingGap)

    defer {
        if describesRequests {
            FileHandle.standardError.write(Data("request: \(request); reached: \(lastStep)\n".utf8))
        }
    }
    let decodedAndLeft = attempt("decode", request) {
        try decoder.decode(
            data, limits: limits, for: transforms, reducingGap: reducingGap, streamsRows: streamsRows,
            colorConverter: registry.colorConverter, keepsColorProfile: keepsProfile, keepsCopyright: keepsCopyright,
            logger: quietLogger)
    }
    guard let (decoded, remaining) = decodedAndLeft else { return }
    count(decoded.width * decoded.height > 64 * 64 ? "decoded (larger than 64x64)" : "decoded (64x64 or less)")
    check(decoded, after: "decode", request)
    let transformed = attempt("transform", request) {
        try decoded.transformed(by: remaining, keepsColorProfile: keepsProfile)
    }
    guard let image = transformed else { return }
    check(image, after: "the transforms", request)
    count("transformed")
    if follower.isEmpty, resize.mode == .fit, let width = resize.width, let height = resize.height {
        precondition(
            image.width <= width && image.height <= height,
            "fit into \(width)x\(height) made \(image.width)x\(image.height): \(request)")
    }

    let formats = registry.encodableFormats.sorted { $0.rawValue < $1.rawValue }
    let format = choices.pick(from: formats)
    let options = EncodingOptions(
        quality: choices.pick(from: [0.85, 0.5, 1, 0]), compressionLevel: choices.pick(from: [6, 1, 9, 0]),
        lossless: choices.pick(4) == 0, speed: 10)
    guard image.width * image.height * max(image.frames.count, 1) <= largestEncodedArea,
        let encoder = attempt("finding the encoder", request, { try registry.encoder(for: format) })
    else { return }
    request.output = ", then \(format.rawValue) \(options.identifier) from \(image.width)x\(image.height)"
    let written = attempt("encode", request) { try encoder.encode(image, options: options) }
    guard let encoded = written else { return }
    count("encoded \(format.rawValue)")

    // The processed result is cached as these bytes and decoded again on a hit: it must read back.
    guard let reader = registry.decoder(for: encoded) else {
        preconditionFailure("the encoder wrote bytes no decoder claims: \(request)")
    }
    let back: Image
    do {
        back = try reader.decode(encoded, limits: limits)
    } catch {
        preconditionFailure("\(reader.name) cannot read what the encoder wrote (\(error)): \(request)")
    }
    check(back, after: "reading the output back", request)
    precondition(
        displayedSize(back) == displayedSize(image),
        "the output reads back at \(back.width)x\(back.height) (\(back.orientation)): \(request)")
}

/// Runs libFuzzer over the request path for inputs in `formats` (others are skipped, so each target's time
/// goes to its own decoder) and exits with the driver's status.
public func fuzzRequests(_ formats: Set<ImageFormat>) -> Never {
    if ProcessInfo.processInfo.environment["TROVE_FUZZ_STATS"] != nil {
        atexit {
            for (step, count) in progress.sorted(by: { $0.key < $1.key }) {
                FileHandle.standardError.write(Data("request stats: \(step): \(count)\n".utf8))
            }
        }
    }
    fuzz { data in runRequest(data, formats: formats) }
}
