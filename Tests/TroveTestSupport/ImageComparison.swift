import Foundation
import TroveCore

/// Peak signal-to-noise ratio in dB between two same-sized RGBA8 images over the given channels;
/// infinity when identical. With `premultiplied`, colours are compared multiplied by alpha (what is
/// seen over black), so the colour of nearly transparent pixels, which no one sees, cannot dominate.
public func psnr(_ a: Image, _ b: Image, channels: [Int] = [0, 1, 2], premultiplied: Bool = false) -> Double {
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

/// How many of `preview`'s first rows equal `final`'s byte for byte (both RGBA8 of one size): how far a
/// row-by-row preview has got.
public func leadingRowsEqual(_ preview: Image, _ final: Image) -> Int {
    let rowBytes = final.width * 4
    return (0..<final.height).prefix { y in
        preview.pixels[(y * rowBytes)..<((y + 1) * rowBytes)] == final.pixels[(y * rowBytes)..<((y + 1) * rowBytes)]
    }.count
}

/// Whether row-by-row `previews` show `final` growing over transparency: each one's first rows are
/// `final`'s, more of them than in the preview before (at least one in the first), and every byte after
/// them is zero.
public func areGrowingBands(_ previews: [Image], of final: Image) -> Bool {
    var rowsBefore = 0
    for preview in previews {
        let rows = leadingRowsEqual(preview, final)
        guard rows > rowsBefore, preview.pixels[(rows * final.width * 4)...].allSatisfy({ $0 == 0 }) else {
            return false
        }
        rowsBefore = rows
    }
    return true
}
