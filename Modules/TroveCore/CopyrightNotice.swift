/// Who owns a picture, as its EXIF block says: the Copyright and Artist tags. Output keeps these by default,
/// as imgproxy's `keep_copyright` does, and drops the rest of the source's metadata;
/// `ImageRequest.Options.dropsCopyright` drops these too.
public struct CopyrightNotice: Sendable, Hashable {
    /// EXIF Copyright (tag 0x8298): the photographer's notice, then the editor's after a NUL when both are.
    public var copyright: String?
    /// EXIF Artist (tag 0x013B): the creator.
    public var artist: String?

    /// A notice with either part; nil parts are left out.
    public init(copyright: String? = nil, artist: String? = nil) {
        self.copyright = copyright
        self.artist = artist
    }
}
