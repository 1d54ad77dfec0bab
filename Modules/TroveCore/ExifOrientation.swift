/// The EXIF orientation tag (1...8) a decoder found; applying it is a transform's job.
public enum ExifOrientation: Int, Sendable, Codable {
    /// Tags 1...8 in order: `up` (stored upright), `upMirrored` (mirrored left to right), `down` (upside down),
    /// `downMirrored` (mirrored top to bottom), `leftMirrored` (mirrored across the main diagonal), `right` (needs a
    /// 90° clockwise turn to stand upright), `rightMirrored` (mirrored across the anti-diagonal), `left` (needs a 90°
    /// counter-clockwise turn). The names are UIKit's `UIImage.Orientation`'s.
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left
}

extension ExifOrientation {
    /// Whether turning the stored pixels upright swaps width and height (orientations 5 to 8).
    package var swapsAxes: Bool { rawValue >= 5 }
}
