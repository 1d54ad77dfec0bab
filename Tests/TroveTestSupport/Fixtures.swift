import Foundation

/// The files under Tests/Fixtures (images, PngSuite, GIFs, Pillow references), found from this source
/// file's location so tests run from any working directory.
public enum Fixtures {
    /// Tests/Fixtures.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// A file by its path under Tests/Fixtures, e.g. `"gif/still.gif"`.
    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    /// Tests/Fixtures/images, the photos and drawings most tests use.
    public static var images: URL { url("images") }

    /// A photo or drawing in Tests/Fixtures/images, e.g. `"coffee.png"` (600x400).
    public static func image(_ name: String) -> URL {
        url("images/\(name)")
    }
}
