import TroveCore

/// Finds where a smaller window should sit in an image to keep its most interesting part, in the spirit
/// of libvips' "attention" strategy: each pixel scores for edges (luma differences to its right and
/// lower neighbours), for colour saturation and for skin tones; scores are summed over cells of a coarse
/// grid, and the window position whose cells hold the most is chosen (nearest the centre on ties).
/// One pass over the pixels plus a sweep of the grid: run it on an image already reduced to its output
/// scale, where it costs a fraction of the resize.
package enum AttentionRegion {
    /// The grid's longer side, in cells: fine enough to place a window within a percent or so.
    static let gridCells = 96
    /// Past this many pixels on the longer side, only every n-th row and column is scored (each against
    /// its direct neighbours, so fine detail still counts): the choice needs the layout, not every pixel.
    static let sampledSide = 512

    /// The top-left corner of the `width x height` window (clipped to the image) that holds the most
    /// interest.
    package static func origin(in image: Image, width: Int, height: Int) -> (x: Int, y: Int) {
        let imageWidth = image.width, imageHeight = image.height
        let windowWidth = min(max(width, 1), imageWidth), windowHeight = min(max(height, 1), imageHeight)
        guard imageWidth > 0, imageHeight > 0, windowWidth < imageWidth || windowHeight < imageHeight else {
            return (0, 0)
        }
        let rgba = image.convertedToRGBA8()
        let step = max(1, (max(imageWidth, imageHeight) + gridCells - 1) / gridCells)
        let columns = (imageWidth + step - 1) / step, rows = (imageHeight + step - 1) / step
        var cells = [Double](repeating: 0, count: columns * rows)
        let stride = max(1, max(imageWidth, imageHeight) / sampledSide)
        rgba.pixels.withUnsafeBufferPointer { pixels in
            @inline(__always) func luma(_ i: Int) -> Int {
                (Int(pixels[i]) * 77 + Int(pixels[i + 1]) * 150 + Int(pixels[i + 2]) * 29) >> 8
            }
            for y in Swift.stride(from: 0, to: imageHeight, by: stride) {
                let cellRow = (y / step) * columns
                for x in Swift.stride(from: 0, to: imageWidth, by: stride) {
                    let i = (y * imageWidth + x) * 4
                    let alpha = Int(pixels[i + 3])
                    guard alpha > 0 else { continue }
                    let r = Int(pixels[i]), g = Int(pixels[i + 1]), b = Int(pixels[i + 2])
                    let l = luma(i)
                    let right = x + 1 < imageWidth ? luma(i + 4) : l
                    let below = y + 1 < imageHeight ? luma(i + imageWidth * 4) : l
                    var score = abs(l - right) + abs(l - below)
                    let saturation = max(r, g, b) - min(r, g, b)
                    if saturation > 64 { score += saturation / 4 }
                    if r > 95, g > 40, b > 20, r > g, r > b, r - min(g, b) > 15, r - g > 15 { score += 24 }
                    cells[cellRow + x / step] += Double(score * alpha) / 255
                }
            }
        }
        // Sums of every cell above and left of (x, y), so any window's total is four reads.
        var table = [Double](repeating: 0, count: (columns + 1) * (rows + 1))
        for y in 0..<rows {
            var rowSum = 0.0
            for x in 0..<columns {
                rowSum += cells[y * columns + x]
                table[(y + 1) * (columns + 1) + x + 1] = table[y * (columns + 1) + x + 1] + rowSum
            }
        }
        let spanX = max(1, min(columns, Int((Double(windowWidth) / Double(step)).rounded()))),
            spanY = max(1, min(rows, Int((Double(windowHeight) / Double(step)).rounded())))
        let centreX = Double(columns - spanX) / 2, centreY = Double(rows - spanY) / 2
        var best = (x: 0, y: 0), bestScore = -1.0, bestDistance = Double.infinity
        for y in 0...(rows - spanY) {
            for x in 0...(columns - spanX) {
                let total =
                    table[(y + spanY) * (columns + 1) + x + spanX] - table[y * (columns + 1) + x + spanX]
                    - table[(y + spanY) * (columns + 1) + x] + table[y * (columns + 1) + x]
                let distance = abs(Double(x) - centreX) + abs(Double(y) - centreY)
                if total > bestScore + 1e-9 || (abs(total - bestScore) <= 1e-9 && distance < bestDistance) {
                    best = (x, y)
                    bestScore = total
                    bestDistance = distance
                }
            }
        }
        let x = min(max(best.x * step, 0), imageWidth - windowWidth)
        let y = min(max(best.y * step, 0), imageHeight - windowHeight)
        // An axis the window fills leaves nothing to choose.
        return (windowWidth == imageWidth ? 0 : x, windowHeight == imageHeight ? 0 : y)
    }
}
