import Foundation
import FuzzDriver
import Trove
import TroveCore
import TroveTransformers

// `ImagePipeline.image(for:)` fuzzed: every input is fetched by the pipeline through a private URL scheme and
// runs one request (`pipelineRequest`) through the stages a server request runs: the probe, the planar JPEG
// route or the RGBA one (shrink-on-load, colour stage, transforms), the encode and the memory tier.
//
// What must hold: the call returns a response of the format asked for, whose image is well formed (inside the
// box of a lone `fit`) and whose data the registry decodes back at that image's displayed size, or it throws a
// TroveError. Anything else is a finding: it traps so libFuzzer records the input.

/// TROVE_FUZZ_DESCRIBE: print each input's request, whether it went the planar way and how it ended.
private let describesRequests = ProcessInfo.processInfo.environment["TROVE_FUZZ_DESCRIBE"] != nil
/// A new URL per input: no cached result or coalesced job of an earlier input can answer for it.
nonisolated(unsafe) private var inputNumber = 0
/// How the inputs ended, printed at exit when TROVE_FUZZ_STATS is set.
nonisolated(unsafe) private var outcomes: [String: Int] = [:]

/// The size `image` is shown at: its stored size, turned for an orientation that swaps the axes.
private func displayedSize(_ image: Image) -> (width: Int, height: Int) {
    image.orientation.swapsAxes ? (image.height, image.width) : (image.width, image.height)
}

/// Traps with `message` about `request` unless `condition` holds.
private func expect(_ condition: Bool, _ message: @autoclosure () -> String, _ request: ImageRequest) {
    if !condition { fatalError("\(message()): \(describe(request))") }
}

/// Checks a response against what must hold of it; returns how it ended.
private func check(_ response: ImageResponse, for request: ImageRequest) -> String {
    let image = response.image
    expect(response.format == request.outputFormat, "the response is \(response.format.rawValue)", request)
    expect(image.width > 0 && image.height > 0, "the response is \(image.width)x\(image.height)", request)
    expect(
        image.bytesPerRow >= image.width * image.pixelFormat.bytesPerPixel
            && image.pixels.count >= image.bytesPerRow * image.height, "the response's pixels are short", request)
    if request.transforms.count == 1, let resize = request.transforms.first as? ResizeTransformer,
        resize.mode == .fit, let width = resize.width, let height = resize.height
    {
        expect(image.width <= width && image.height <= height, "fit made \(image.width)x\(image.height)", request)
    }
    // A cached result is these bytes, decoded again on a hit: they must read back at the same size.
    guard let reader = fuzzRegistry.decoder(for: response.data) else {
        fatalError("no decoder claims the response's \(response.data.count) bytes: \(describe(request))")
    }
    let back: Image
    do {
        back = try reader.decode(response.data, limits: fuzzLimits)
    } catch {
        fatalError("\(reader.name) cannot read the response back (\(error)): \(describe(request))")
    }
    expect(
        displayedSize(back) == displayedSize(image),
        "the response reads back at \(back.width)x\(back.height) (\(back.orientation)), not "
            + "\(image.width)x\(image.height) (\(image.orientation))", request)
    return "made \(response.format.rawValue)"
}

/// Runs one input through the pipeline.
private func runPipeline(_ input: Data) {
    let data = fuzzRegistry.decoder(for: input)?.format == .png ? repairingPNGChunkCRCs(input) : input
    inputNumber += 1
    guard let url = URL(string: "fuzz://input/\(inputNumber)") else { preconditionFailure("a fuzz URL") }
    let request = pipelineRequest(for: input, url: url)
    let planarBefore = resultCounts.planar.value.load(ordering: .relaxed)
    inputFetcher.serve(data)
    let result = waitFor { () async -> Result<ImageResponse, any Error> in
        do {
            return .success(try await fuzzPipeline.image(for: request))
        } catch {
            return .failure(error)
        }
    }
    // A kept result would answer nothing (the next input has its own URL), and LeakSanitizer takes what is
    // kept for a leak: Data's storage is reached through an enum whose case sits in the pointer's spare bits.
    fuzzPipeline.memoryCache.removeAll()
    inputFetcher.serve(Data())
    let outcome: String
    switch result {
    case let .success(response): outcome = check(response, for: request)
    case let .failure(error as TroveError):
        // The case, not the message: the stats stay a few lines.
        outcome = "refused (\(Mirror(reflecting: error).children.first?.label ?? "\(error)"))"
        if describesRequests { FileHandle.standardError.write(Data("refused: \(error)\n".utf8)) }
    case let .failure(error): fatalError("image(for:) threw a \(type(of: error)), not a TroveError (\(error))")
    }
    let planar = resultCounts.planar.value.load(ordering: .relaxed) > planarBefore
    outcomes[planar ? "\(outcome), planar" : outcome, default: 0] += 1
    if describesRequests {
        let line = "request: \(describe(request)); \(outcome)\(planar ? ", planar" : "")\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

if ProcessInfo.processInfo.environment["TROVE_FUZZ_STATS"] != nil {
    atexit {
        let processed = resultCounts.processed.value.load(ordering: .relaxed)
        let planar = resultCounts.planar.value.load(ordering: .relaxed)
        let streamed = resultCounts.streamed.value.load(ordering: .relaxed)
        var lines = ["pipeline stats: results processed \(processed), planar \(planar), streamed \(streamed)\n"]
        for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) {
            lines.append("pipeline stats: \(outcome): \(count)\n")
        }
        for line in lines { FileHandle.standardError.write(Data(line.utf8)) }
    }
}
fuzz { data in runPipeline(data) }
