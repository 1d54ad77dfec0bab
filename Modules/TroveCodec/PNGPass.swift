/// One pass of a PNG image: a sub-image of every `xStep`-th pixel of every `yStep`-th row.
/// A non-interlaced image is a single pass with steps of 1.
struct PNGPass {
    let xStart: Int, yStart: Int, xStep: Int, yStep: Int
    let width: Int, height: Int

    init(xStart: Int, yStart: Int, xStep: Int, yStep: Int, imageWidth: Int, imageHeight: Int) {
        self.xStart = xStart
        self.yStart = yStart
        self.xStep = xStep
        self.yStep = yStep
        width = imageWidth > xStart ? (imageWidth - xStart + xStep - 1) / xStep : 0
        height = imageHeight > yStart ? (imageHeight - yStart + yStep - 1) / yStep : 0
    }

    var isEmpty: Bool { width == 0 || height == 0 }

    /// The passes a PNG's pixel data is stored in: one, or Adam7's seven (empty passes are left out,
    /// as they are absent from the data).
    static func passes(for header: PNGHeader) -> [PNGPass] {
        guard header.interlaced else {
            return [
                PNGPass(
                    xStart: 0, yStart: 0, xStep: 1, yStep: 1,
                    imageWidth: header.width, imageHeight: header.height)
            ]
        }
        let adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        return adam7.map {
            PNGPass(
                xStart: $0.0, yStart: $0.1, xStep: $0.2, yStep: $0.3,
                imageWidth: header.width, imageHeight: header.height)
        }.filter { !$0.isEmpty }
    }
}
