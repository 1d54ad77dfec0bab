/// Who owns a picture and on what terms, as its metadata says: EXIF Copyright and Artist, the XMP rights
/// fields and IPTC-IIM's Copyright Notice, By-line and Credit. Output keeps these by default, as imgproxy's
/// `keep_copyright` does, and drops the rest of the source's metadata; `ImageRequest.Options.dropsCopyright`
/// drops these too. Where the blocks disagree, EXIF wins, then XMP, then IPTC-IIM.
public struct CopyrightNotice: Sendable, Hashable {
    /// The copyright notice: EXIF Copyright (tag 0x8298; the photographer's notice, then the editor's after a NUL
    /// when both are), else XMP dc:rights, else IPTC-IIM 2:116 Copyright Notice.
    public var copyright: String?
    /// The creator: EXIF Artist (tag 0x013B), else XMP dc:creator, else IPTC-IIM 2:80 By-line; several
    /// creators are joined with "; ", as the Metadata Working Group maps them onto EXIF.
    public var artist: String?
    /// XMP xmpRights:UsageTerms (its default language): how the picture may be used.
    package var usageTerms: String?
    /// XMP xmpRights:WebStatement: the address of a page stating the rights.
    package var webStatement: String?
    /// XMP xmpRights:Marked: true for rights-managed, false for public domain; nil when unknown.
    package var marked: Bool?
    /// XMP photoshop:Credit, else IPTC-IIM 2:110 Credit: the credit line to print with the picture.
    package var credit: String?

    /// A notice with either part; nil parts are left out.
    public init(copyright: String? = nil, artist: String? = nil) {
        self.copyright = copyright
        self.artist = artist
    }

    /// Whether no field is set.
    package var isEmpty: Bool {
        copyright == nil && artist == nil && usageTerms == nil && webStatement == nil && marked == nil
            && credit == nil
    }

    /// This notice with each field it lacks taken from `other`.
    package func filled(from other: CopyrightNotice?) -> CopyrightNotice {
        guard let other else { return self }
        var notice = self
        notice.copyright = copyright ?? other.copyright
        notice.artist = artist ?? other.artist
        notice.usageTerms = usageTerms ?? other.usageTerms
        notice.webStatement = webStatement ?? other.webStatement
        notice.marked = marked ?? other.marked
        notice.credit = credit ?? other.credit
        return notice
    }

    /// The creators in `artist`, split where the "; " that joins them stands; empty when there is none.
    package var creators: [String] {
        guard let artist else { return [] }
        return artist.split(separator: "; ").filter { !$0.allSatisfy(\.isWhitespace) }.map(String.init)
    }

    /// `text` for a block that has no NUL separator (XMP, IPTC-IIM): EXIF Copyright's photographer and editor
    /// parts joined with "; ", a blank part left out.
    package static func withoutNULs(_ text: String) -> String {
        guard text.contains("\0") else { return text }
        return text.split(separator: "\0").filter { !$0.allSatisfy(\.isWhitespace) }.joined(separator: "; ")
    }
}
