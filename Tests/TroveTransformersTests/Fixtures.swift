import Foundation
import TroveCodec
import TroveCore
import TroveTestSupport

/// Test images on disk, decoded: the photos in Tests/Fixtures/images and the Pillow references in
/// Tests/Fixtures/pillow (see the README there for how each was made).
extension Fixtures {
    static func photo(_ name: String) throws -> Image { try load(url("images/\(name)")) }

    static func pillow(_ name: String) throws -> Image { try load(url("pillow/\(name)")) }

    private static func load(_ url: URL) throws -> Image {
        try PNGDecoder().decode(Data(contentsOf: url), limits: .default).convertedToRGBA8()
    }
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
