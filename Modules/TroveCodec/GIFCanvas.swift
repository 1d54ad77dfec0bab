/// The logical screen an animation is composed on, with what disposal needs to undo a frame.
struct GIFCanvas {
    let width: Int
    let height: Int
    /// RGBA8 rows; starts fully transparent.
    private(set) var pixels: [UInt8]
    /// The canvas before the last frame with disposal "restore previous" was drawn.
    private var saved: [UInt8]?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// The part of a frame's rectangle that lies on the screen (frames may hang over the edge).
    private func visibleRect(_ frame: GIFFrameLayout) -> (x: Range<Int>, y: Range<Int>) {
        let x0 = min(frame.left, width), y0 = min(frame.top, height)
        return (x0..<min(frame.left + frame.width, width), y0..<min(frame.top + frame.height, height))
    }

    /// Draws a frame's indices; transparent pixels leave the canvas as it is, and so do the pixels past
    /// `decodedRows[row]` in each row of a frame its data did not fill (nil: it filled every pixel).
    mutating func draw(_ indices: [UInt8], frame: GIFFrameLayout, palette: GIFPalette, decodedRows: [Int]? = nil) {
        if frame.disposal == .restorePrevious { saved = pixels }
        let (xs, ys) = visibleRect(frame)
        guard !xs.isEmpty && !ys.isEmpty else { return }
        let canvasWidth = width
        indices.withUnsafeBufferPointer { source in
            palette.entries.withUnsafeBufferPointer { colors in
                pixels.withUnsafeMutableBytes { canvas in
                    for y in ys {
                        let sourceRow = (y - frame.top) * frame.width - frame.left
                        let canvasRow = y * canvasWidth
                        let rowEnd = decodedRows.map { min(xs.upperBound, frame.left + $0[y - frame.top]) }
                        for x in xs.lowerBound..<max(xs.lowerBound, rowEnd ?? xs.upperBound) {
                            let color = colors[Int(source[sourceRow + x])]
                            // Alpha is 0 only for the transparent index.
                            if color >> 24 != 0 {
                                canvas.storeBytes(of: color, toByteOffset: (canvasRow + x) * 4, as: UInt32.self)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Applies a frame's disposal after it has been shown.
    mutating func dispose(_ frame: GIFFrameLayout) {
        switch frame.disposal {
        case .none:
            break
        case .restorePrevious:
            if let saved { pixels = saved }
            saved = nil
        case .restoreBackground:
            let (xs, ys) = visibleRect(frame)
            guard !xs.isEmpty else { return }
            for y in ys {
                let start = (y * width + xs.lowerBound) * 4
                pixels.withUnsafeMutableBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    (base + start).update(repeating: 0, count: xs.count * 4)
                }
            }
        }
    }
}
