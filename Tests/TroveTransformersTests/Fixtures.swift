import Foundation
import TroveCodec
import TroveCore

/// Test images on disk: the photos in Tests/Fixtures/images and the Pillow references in
/// Tests/Fixtures/pillow (see the README there for how each was made).
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func photo(_ name: String) throws -> Image { try load(root.appendingPathComponent("images/\(name)")) }

    static func pillow(_ name: String) throws -> Image { try load(root.appendingPathComponent("pillow/\(name)")) }

    private static func load(_ url: URL) throws -> Image {
        try PNGDecoder().decode(Data(contentsOf: url), limits: .default).convertedToRGBA8()
    }
}

/// Peak signal-to-noise ratio in dB between two same-sized RGBA8 images over the given channels;
/// infinity when identical. With `premultiplied`, colours are compared multiplied by alpha (what is
/// seen over black), so the colour of nearly transparent pixels, which no one sees, cannot dominate.
func psnr(_ a: Image, _ b: Image, channels: [Int] = [0, 1, 2], premultiplied: Bool = false) -> Double {
    precondition(a.width == b.width && a.height == b.height, "compare same-sized images")
    let count = a.width * a.height * 4
    var squaredError = 0.0
    a.pixels.withUnsafeBufferPointer { p in
        b.pixels.withUnsafeBufferPointer { q in
            for i in stride(from: 0, to: count, by: 4) {
                let alphaP = premultiplied ? Double(p[i + 3]) / 255 : 1
                let alphaQ = premultiplied ? Double(q[i + 3]) / 255 : 1
                for c in channels {
                    let x = Double(p[i + c]) * (c < 3 ? alphaP : 1), y = Double(q[i + c]) * (c < 3 ? alphaQ : 1)
                    squaredError += (x - y) * (x - y)
                }
            }
        }
    }
    let mse = squaredError / Double(a.width * a.height * channels.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

/// The largest difference between corresponding bytes of two images' pixels in the given channels.
func maximumDifference(_ a: Image, _ b: Image, channels: [Int] = [0, 1, 2, 3]) -> Int {
    var worst = 0
    let count = min(a.pixels.count, b.pixels.count)
    a.pixels.withUnsafeBufferPointer { p in
        b.pixels.withUnsafeBufferPointer { q in
            for i in stride(from: 0, to: count, by: 4) {
                for c in channels { worst = max(worst, abs(Int(p[i + c]) - Int(q[i + c]))) }
            }
        }
    }
    return worst
}

/// Whether channel `channel` of every pixel of `a` equals that of `b`.
func sameChannel(_ channel: Int, _ a: Image, _ b: Image) -> Bool {
    guard a.pixels.count == b.pixels.count else { return false }
    return stride(from: channel, to: a.pixels.count, by: 4).allSatisfy { a.pixels[$0] == b.pixels[$0] }
}
