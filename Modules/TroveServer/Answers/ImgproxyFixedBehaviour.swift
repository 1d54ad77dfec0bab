/// imgproxy variables for behaviour Trove has one way only. A deployment that asks for Trove's way is
/// honoured; one that asks for the other is named at start as ignored, since nothing would change.
enum ImgproxyFixedBehaviour {
    /// Each variable, the switch value Trove's results always match, and why.
    static let values: [String: (value: Bool, why: String)] = [
        "IMGPROXY_STRIP_METADATA": (true, "results carry no EXIF, XMP or IPTC beyond the copyright notice"),
        "IMGPROXY_ENFORCE_THUMBNAIL": (false, "embedded thumbnails are never used")
    ]

    /// Whether `name=value` asks for what Trove does anyway; false for any other variable.
    static func honours(_ name: String, _ value: String) -> Bool {
        guard let fixed = values[name], let given = try? ServerSetting.truth(value, name) else { return false }
        return given == fixed.value
    }
}
