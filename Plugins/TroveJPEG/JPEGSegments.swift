import Foundation
import TroveCore

/// The metadata segments Trove writes into and reads from a JPEG file around libjpeg-turbo: an ICC profile
/// as APP2 "ICC_PROFILE" markers, the layout the ICC specifies (each with a sequence number, the marker
/// count and up to 65,519 profile bytes, so a large profile spans several), EXIF as one APP1 "Exif"
/// marker, an XMP packet as one APP1 marker, and IPTC-IIM in one APP13 marker.
enum JPEGSegments {
    /// The APP2 identifier, NUL included.
    static let profileIdentifier = Array("ICC_PROFILE".utf8) + [0]
    /// The APP1 identifier.
    static let exifIdentifier = Array("Exif".utf8) + [0, 0]
    /// A segment's largest payload: 65,535 less its two length bytes.
    static let maxPayload = 65_533
    /// Profile bytes per marker: a segment's payload less the identifier and the two counters.
    static let profileBytesPerMarker = maxPayload - 14

    /// `jpeg` with `segments` (whole markers) after the SOI and any APP0 (JFIF) marker, where readers look.
    /// Nil when the file does not start as a JPEG.
    static func inserting(_ segments: [UInt8], into jpeg: Data) -> Data? {
        let bytes = [UInt8](jpeg)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var insertAt = 2
        if bytes.count >= 6, bytes[2] == 0xFF, bytes[3] == 0xE0 {
            insertAt = 4 + Int(bytes[4]) << 8 + Int(bytes[5])
            guard insertAt <= bytes.count else { return nil }
        }
        var out = Data(capacity: bytes.count + segments.count)
        out.append(contentsOf: bytes[0..<insertAt])
        out.append(contentsOf: segments)
        out.append(contentsOf: bytes[insertAt...])
        return out
    }

    /// One marker: FF, its code, the length, the payload.
    private static func marker(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, code, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `profile` as APP2 markers; nil when it is empty or needs more than 255 markers.
    static func profileMarkers(_ profile: [UInt8]) -> [UInt8]? {
        let count = (profile.count + profileBytesPerMarker - 1) / profileBytesPerMarker
        guard (1...255).contains(count) else { return nil }
        return (0..<count).flatMap { index in
            let end = min(profile.count, (index + 1) * profileBytesPerMarker)
            let chunk = profile[(index * profileBytesPerMarker)..<end]
            return marker(0xE2, profileIdentifier + [UInt8(index + 1), UInt8(count)] + chunk)
        }
    }

    /// A TIFF structure as an APP1 marker; nil when it does not fit in one.
    static func exifMarker(_ tiff: [UInt8]) -> [UInt8]? {
        guard exifIdentifier.count + tiff.count <= maxPayload else { return nil }
        return marker(0xE1, exifIdentifier + tiff)
    }

    /// The packet as an APP1 XMP marker; nil when it does not fit in one.
    static func xmpMarker(_ packet: [UInt8]) -> [UInt8]? {
        guard XMPRights.jpegIdentifier.count + packet.count <= maxPayload else { return nil }
        return marker(0xE1, XMPRights.jpegIdentifier + packet)
    }

    /// IPTC-IIM datasets as an APP13 marker (Photoshop's image resources holding resource 0x0404); nil when
    /// they do not fit in one.
    static func iptcMarker(_ datasets: [UInt8]) -> [UInt8]? {
        let payload = IPTCRecords.jpegIdentifier + IPTCRecords.resources(holding: datasets)
        return payload.count <= maxPayload ? marker(0xED, payload) : nil
    }

    /// The TIFF structure of the first APP1 "Exif" marker before the image data, or nil.
    static func exif(in jpeg: Data) -> [UInt8]? {
        var exif: [UInt8]?
        forEachSegment(in: jpeg) { code, payload in
            guard code == 0xE1, payload.starts(with: exifIdentifier) else { return true }
            exif = Array(payload.dropFirst(exifIdentifier.count))
            return false
        }
        return exif
    }

    /// The metadata before the image data: the first APP1 "Exif" marker's TIFF structure, the first APP1 XMP
    /// packet (XMP's extension markers are not read: the rights fields stay in the main packet), and the IIM
    /// datasets of the Photoshop resources in the APP13 markers (joined, as Photoshop splits them).
    static func metadata(in jpeg: Data) -> EmbeddedMetadata {
        var metadata = EmbeddedMetadata()
        var resources: [UInt8]?
        forEachSegment(in: jpeg) { code, payload in
            if code == 0xE1, metadata.exif == nil, payload.starts(with: exifIdentifier) {
                metadata.exif = Array(payload.dropFirst(exifIdentifier.count))
            } else if code == 0xE1, metadata.xmp == nil, payload.starts(with: XMPRights.jpegIdentifier) {
                metadata.xmp = Array(payload.dropFirst(XMPRights.jpegIdentifier.count))
            } else if code == 0xED, payload.starts(with: IPTCRecords.jpegIdentifier) {
                resources = (resources ?? []) + payload.dropFirst(IPTCRecords.jpegIdentifier.count)
            }
            return true
        }
        metadata.iptc = resources.flatMap(IPTCRecords.datasets(inResources:))
        return metadata
    }

    /// Calls `body` with each marker's code and payload before the scan, in file order, until it returns
    /// false; the walk stops at the first damaged marker.
    private static func forEachSegment(in jpeg: Data, _ body: (UInt8, Slice<UnsafeRawBufferPointer>) -> Bool) {
        jpeg.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return }
            var at = 2
            while at + 4 <= bytes.count, bytes[at] == 0xFF {
                let code = bytes[at + 1]
                // Fill bytes, and markers without a length (TEM, RSTn), carry no segment.
                if code == 0xFF { at += 1; continue }
                if code == 0x01 || (0xD0...0xD7).contains(code) { at += 2; continue }
                // The scan (SOS) or the end: metadata comes before them.
                if code == 0xDA || code == 0xD9 { return }
                let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                guard length >= 2, at + 2 + length <= bytes.count else { return }
                guard body(code, bytes[(at + 4)..<(at + 2 + length)]) else { return }
                at += 2 + length
            }
        }
    }
}
