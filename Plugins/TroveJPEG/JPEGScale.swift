import TroveCore

/// The scaled sizes libjpeg-turbo's IDCT can decode to: M/8 of the stored size for M in 1...8, each side
/// rounded up (libjpeg's `jdiv_round_up`).
enum JPEGScale {
    /// The stored size scaled by `numerator`/8, as libjpeg computes it.
    static func size(of stored: PixelSize, numerator: Int) -> PixelSize {
        PixelSize(width: (stored.width * numerator + 7) / 8, height: (stored.height * numerator + 7) / 8)
    }

    /// The smallest numerator whose scaled size is still at least `minimum` in both dimensions; 8 (full
    /// size, never larger) when no smaller scale covers it.
    static func numerator(for stored: PixelSize, minimum: PixelSize) -> Int {
        for numerator in 1..<8 {
            let scaled = size(of: stored, numerator: numerator)
            if scaled.width >= minimum.width && scaled.height >= minimum.height { return numerator }
        }
        return 8
    }
}
