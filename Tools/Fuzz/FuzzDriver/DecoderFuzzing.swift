import Foundation
import TroveCore

// What every decoder's libFuzzer target checks: decoding arbitrary bytes must return an image or throw a
// TroveError, never crash, hang or leak. Limits are small so a huge declared size is refused rather than
// allocated. SwiftPM gives every executable its own main, so each target hands control to libFuzzer's
// driver through `fuzz(_:)`.

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The decoder the C callback runs (a C function pointer captures nothing). Set once, before the driver
/// starts, and only read afterwards, from libFuzzer's single thread.
nonisolated(unsafe) private var decoderUnderTest: (any ImageDecoder)?

private func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let decoder = decoderUnderTest else { preconditionFailure("fuzz(_:) sets the decoder first") }
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        let image = try decoder.decode(data, limits: DecodingLimits(maxPixels: 1 << 22, maxDecodedBytes: 1 << 26))
        precondition(image.pixels.count >= image.width * image.height * 4, "short pixel buffer")
    } catch is TroveError {
        // Refusing bad input is the expected outcome.
    } catch {
        preconditionFailure("a decoder threw something other than TroveError: \(error)")
    }
    return 0
}

/// Runs libFuzzer over `decoder` with the process's arguments and exits with the driver's status.
public func fuzz(_ decoder: any ImageDecoder) -> Never {
    decoderUnderTest = decoder
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argc, &argv, { fuzzOneInput($0, $1) }))
}
