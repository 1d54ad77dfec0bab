extension TroveError {
    /// The content failure whose `cause` (its `description`) a failure memory kept, rebuilt from that text so a
    /// later refusal can say what the first one said: a source over the pixel, frame or decode-memory limit,
    /// or damaged. Nil for any other cause (not an image, no decoder, a status), and for text it does not
    /// recognise. `TroveErrorRememberedCauseTests` round-trips each case, so a reworded description fails there.
    package init?(rememberedCause cause: String) {
        if let match = cause.prefixMatch(of: #/image of (\d+)x(\d+) pixels exceeds the limit of (\d+) pixels/#),
            let width = Int(match.1), let height = Int(match.2), let limit = Int(match.3)
        {
            self = .imageTooLarge(width: width, height: height, limit: limit)
        } else if let match = cause.prefixMatch(of: #/animation of (\d+) frames exceeds the limit of (\d+) frames/#),
            let frames = Int(match.1), let limit = Int(match.2)
        {
            self = .tooManyFrames(frames: frames, limit: limit)
        } else if let match = cause.prefixMatch(
            of: #/decoding needs (\d+) bytes, over the limit of (\d+) bytes \((.*)\); raise it/#),
            let needed = Int(match.1), let limit = Int(match.2)
        {
            self = .tooLargeToDecode(needed: needed, limit: limit, setting: String(match.3))
        } else if let match = cause.prefixMatch(of: #/could not decode ([a-z0-9]+): /#) {
            self = .decodingFailed(
                format: ImageFormat(rawValue: String(match.1)), reason: String(cause[match.range.upperBound...]))
        } else {
            return nil
        }
    }
}
