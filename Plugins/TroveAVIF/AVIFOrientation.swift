import TroveCore

/// HEIF's rotation ('irot') and mirroring ('imir') properties as an EXIF orientation. AVIF applies the
/// rotation first, then the mirror; libavif reports both and applies neither, like Trove's decoders.
enum AVIFOrientation {
    /// - Parameters:
    ///   - quarterTurnsAnticlockwise: 'irot' angle, 0...3.
    ///   - mirror: 'imir' mode when present: 0 exchanges top and bottom, 1 exchanges left and right.
    static func exif(quarterTurnsAnticlockwise turns: Int, mirror: Int?) -> ExifOrientation {
        switch (turns & 3, mirror) {
        case (0, nil): .up
        case (0, 0?): .downMirrored
        case (0, _?): .upMirrored
        case (1, nil): .left
        case (1, 0?): .leftMirrored
        case (1, _?): .rightMirrored
        case (2, nil): .down
        case (2, 0?): .upMirrored
        case (2, _?): .downMirrored
        case (_, nil): .right
        case (_, 0?): .rightMirrored
        case (_, _?): .leftMirrored
        }
    }

    /// The 'irot' quarter turns (anti-clockwise) and 'imir' mode that display as `orientation`: what an
    /// encoder writes for an image whose stored pixels it keeps.
    static func boxes(for orientation: ExifOrientation) -> (quarterTurnsAnticlockwise: Int, mirror: Int?) {
        switch orientation {
        case .up: (0, nil)
        case .upMirrored: (0, 1)
        case .down: (2, nil)
        case .downMirrored: (0, 0)
        case .leftMirrored: (1, 0)
        case .right: (3, nil)
        case .rightMirrored: (1, 1)
        case .left: (1, nil)
        }
    }
}
