import Foundation
import TroveCore
import TroveCodec

// libFuzzer target for PNGDecoder: decoding arbitrary bytes must return an image or throw a TroveError,
// never crash, hang or leak. Limits are small so a huge declared size is refused rather than allocated.
// SwiftPM gives every executable its own main, so this one hands control to libFuzzer's driver.

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        let image = try PNGDecoder().decode(data, limits: DecodingLimits(maxPixels: 1 << 22, maxDecodedBytes: 1 << 26))
        precondition(image.pixels.count >= image.width * image.height * 4, "short pixel buffer")
    } catch is TroveError {
        // Refusing bad input is the expected outcome.
    } catch {
        preconditionFailure("a decoder threw something other than TroveError: \(error)")
    }
    return 0
}

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv, { fuzzOneInput($0, $1) }))
