import Foundation

/// The build's products directory: where SwiftPM puts the test runner and every executable product
/// (`swift build --build-tests`, which `make test` runs first, builds them all). Tests find `trove`,
/// `DiskCacheTorture` and the other tools here.
public func productsDirectory() -> URL {
    let runner =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
    var directory = URL(fileURLWithPath: runner).deletingLastPathComponent()
    // On macOS the runner sits inside a .xctest bundle: Contents/MacOS/<name>.
    while directory.path.contains(".xctest") { directory = directory.deletingLastPathComponent() }
    return directory
}
