import Foundation

/// The metadata blocks a decoder found in a file, as stored, for the pipeline to read the copyright notice
/// from: EXIF, the XMP packet and IPTC-IIM.
package struct EmbeddedMetadata: Sendable, Equatable {
    /// The EXIF block as a TIFF structure (from its byte-order mark on).
    package var exif: [UInt8]?
    /// The XMP packet, UTF-8 XML.
    package var xmp: [UInt8]?
    /// IPTC-IIM datasets (the contents of Photoshop's resource 0x0404).
    package var iptc: [UInt8]?

    /// The blocks given; nil ones the file does not have.
    package init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, iptc: [UInt8]? = nil) {
        self.exif = exif
        self.xmp = xmp
        self.iptc = iptc
    }

    /// The copyright notice the blocks hold together: EXIF's fields, what EXIF lacks from XMP, then what both
    /// lack from IPTC-IIM. Nil when none has a field; a malformed block counts as absent.
    package var copyrightNotice: CopyrightNotice? {
        let notice = (exif.flatMap { ExifBlock(tiff: $0)?.copyrightNotice } ?? CopyrightNotice())
            .filled(from: xmp.flatMap { XMPRights.notice(inPacket: $0) })
            .filled(from: iptc.flatMap { IPTCRecords.notice(inDatasets: $0) })
        return notice.isEmpty ? nil : notice
    }
}

/// A decoder that finds its file's XMP packet and IPTC-IIM records as well as its EXIF block, in one pass
/// over the container. `ImageDecoder.copyrightNotice(_:)` reads all three from a decoder that is one, EXIF
/// alone from one that is not.
package protocol EmbeddedMetadataReading: ImageDecoder {
    /// The metadata blocks in `data`; an unreadable file has none.
    func embeddedMetadata(_ data: Data) -> EmbeddedMetadata
}
