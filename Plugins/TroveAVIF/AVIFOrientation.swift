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
}
