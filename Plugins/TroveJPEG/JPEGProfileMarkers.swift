import Foundation

/// Embeds an ICC profile in a JPEG file as APP2 "ICC_PROFILE" markers, the layout the ICC specifies (and
/// libjpeg's `jpeg_write_icc_profile` writes): each marker carries a sequence number, the marker count and
/// up to 65,519 bytes of the profile, so a large profile spans several markers.
enum JPEGProfileMarkers {
    /// The marker's identifier, NUL included.
    static let identifier = Array("ICC_PROFILE".utf8) + [0]
    /// Profile bytes per marker: a segment's 65,533 bytes less the identifier and the two counters.
    static let bytesPerMarker = 65_533 - 14

    /// `jpeg` with `profile` in APP2 markers after the SOI and any APP0 (JFIF) marker, where readers look.
    /// Returns nil when the file does not start as a JPEG or the profile needs more than 255 markers.
    static func embedding(_ profile: [UInt8], in jpeg: Data) -> Data? {
        let bytes = [UInt8](jpeg)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8, !profile.isEmpty else { return nil }
        let count = (profile.count + bytesPerMarker - 1) / bytesPerMarker
        guard count <= 255 else { return nil }
        var insertAt = 2
        if bytes.count >= 6, bytes[2] == 0xFF, bytes[3] == 0xE0 {
            insertAt = 4 + Int(bytes[4]) << 8 + Int(bytes[5])
            guard insertAt <= bytes.count else { return nil }
        }
        var markers: [UInt8] = []
        markers.reserveCapacity(profile.count + count * 18)
        for index in 0..<count {
            let chunk = profile[(index * bytesPerMarker)..<min(profile.count, (index + 1) * bytesPerMarker)]
            let length = 2 + identifier.count + 2 + chunk.count
            markers += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            markers += identifier
            markers += [UInt8(index + 1), UInt8(count)]
            markers += chunk
        }
        var out = Data(capacity: bytes.count + markers.count)
        out.append(contentsOf: bytes[0..<insertAt])
        out.append(contentsOf: markers)
        out.append(contentsOf: bytes[insertAt...])
        return out
    }
}
