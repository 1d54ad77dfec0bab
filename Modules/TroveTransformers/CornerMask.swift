/// How much of a pixel lies inside a circle, estimated from its centre's distance to the circle's edge:
/// 1 well inside, 0 well outside, a linear ramp one pixel wide across the edge. That ramp is the
/// antialiasing: edges come out smooth instead of stair-stepped.
@inline(__always)
func circleCoverage(pixelX x: Int, pixelY y: Int, centreX cx: Double, centreY cy: Double, radius: Double) -> Double {
    let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
    let distance = (dx * dx + dy * dy).squareRoot()
    return min(max(radius - distance + 0.5, 0), 1)
}

/// Multiplies alpha by the mask's coverage, rounded; colours are kept.
@inline(__always)
func applyCoverage(
    _ coverage: Double, _ src: UnsafeBufferPointer<UInt8>, _ dst: UnsafeMutableBufferPointer<UInt8>,
    at i: Int
) {
    dst[i] = src[i]
    dst[i + 1] = src[i + 1]
    dst[i + 2] = src[i + 2]
    dst[i + 3] = UInt8(Double(src[i + 3]) * coverage + 0.5)
}
