/// Which placeholder to compute for an image: a small stand-in an app shows, blurred, while the image loads.
public enum PlaceholderKind: Sendable, Hashable, CustomStringConvertible {
    /// ThumbHash (at most 25 bytes, base64): keeps the average colour, the aspect ratio and alpha.
    case thumbHash
    /// BlurHash (base 83) with `x` by `y` components, each 1...9; 4 by 3 by default. It has no alpha.
    case blurHash(x: Int = 4, y: Int = 3)

    /// How the kind is named where it is stored and printed: `thumbhash`, or `blurhash:XxY`.
    package var identifier: String {
        switch self {
        case .thumbHash: "thumbhash"
        case let .blurHash(x, y): "blurhash:\(x)x\(y)"
        }
    }

    /// `thumbhash`, or `blurhash` with its components (`blurhash:4x3`).
    public var description: String { identifier }

    /// The kind a CLI flag or a URL option names: `thumbhash`, `blurhash` (4x3) or `blurhash:XxY`; nil for
    /// anything else, including component counts outside 1...9.
    package init?(parsing text: String) {
        let lowered = text.lowercased()
        if lowered == "thumbhash" {
            self = .thumbHash
            return
        }
        if lowered == "blurhash" {
            self = .blurHash()
            return
        }
        guard lowered.hasPrefix("blurhash:") else { return nil }
        let counts = lowered.dropFirst("blurhash:".count).split(separator: "x", omittingEmptySubsequences: false)
        guard counts.count == 2, let x = Int(counts[0]), let y = Int(counts[1]), (1...9).contains(x),
            (1...9).contains(y)
        else { return nil }
        self = .blurHash(x: x, y: y)
    }
}
