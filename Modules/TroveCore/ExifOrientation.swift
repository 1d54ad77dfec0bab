/// The EXIF orientation tag (1...8) a decoder found; applying it is a transform's job.
public enum ExifOrientation: Int, Sendable, Codable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left
}
