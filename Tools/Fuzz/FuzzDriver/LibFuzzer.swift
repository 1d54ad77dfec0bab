import Foundation

// The libFuzzer hand-off every target shares. SwiftPM gives every executable its own main, so each target
// hands control to libFuzzer's driver through `fuzz(_:)` with the body to run on each input.

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// What the C callback runs on each input (a C function pointer captures nothing). Set once, before the
/// driver starts, and only read afterwards, from libFuzzer's single thread.
nonisolated(unsafe) private var bodyUnderTest: ((Data) -> Void)?

private func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let body = bodyUnderTest else { preconditionFailure("fuzz(_:) sets the body first") }
    body(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

/// Runs libFuzzer with the process's arguments, calling `body` on every input, and exits with the driver's
/// status. `body` checks what must hold and traps (a precondition) when it does not.
public func fuzz(_ body: @escaping (Data) -> Void) -> Never {
    bodyUnderTest = body
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argc, &argv, { fuzzOneInput($0, $1) }))
}
