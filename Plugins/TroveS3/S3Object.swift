import Foundation

/// What S3 says about a stored object: its length and the headers a cache needs.
public struct S3ObjectInfo: Sendable, Equatable {
    /// The object's length in bytes.
    public var size: Int
    /// The ETag as S3 sent it, quotes included (a multipart object's ends in `-N`, the number of parts).
    public var etag: String?
    /// The Content-Type it was stored with.
    public var contentType: String?
    /// The Last-Modified header, as sent (an HTTP date).
    public var lastModified: String?

    /// Object information from its parts.
    public init(size: Int, etag: String? = nil, contentType: String? = nil, lastModified: String? = nil) {
        self.size = size
        self.etag = etag
        self.contentType = contentType
        self.lastModified = lastModified
    }
}

/// A whole object read into memory: its bytes and what S3 said about it.
public struct S3Object: Sendable, Equatable {
    /// The object's bytes.
    public var data: Data
    /// Its length, ETag, Content-Type and Last-Modified.
    public var info: S3ObjectInfo

    /// An object from its bytes and information.
    public init(data: Data, info: S3ObjectInfo) {
        self.data = data
        self.info = info
    }
}

/// How an object is written.
public struct S3PutOptions: Sendable, Equatable {
    /// The Content-Type stored with the object (S3 answers it on GET); nil stores S3's default.
    public var contentType: String?
    /// Write only if no object has the key yet (`If-None-Match: *`); an existing one makes the result
    /// `alreadyExists` and is left as it was.
    public var onlyIfAbsent: Bool

    /// Options with the given settings; by default no Content-Type and an unconditional write.
    public init(contentType: String? = nil, onlyIfAbsent: Bool = false) {
        self.contentType = contentType
        self.onlyIfAbsent = onlyIfAbsent
    }
}

/// What a write did.
public enum S3PutResult: Sendable, Equatable {
    /// The object was stored; S3's ETag for it.
    case stored(etag: String?)
    /// `onlyIfAbsent` was set and the key already had an object (412 Precondition Failed): nothing was written.
    case alreadyExists
}
