import Foundation

/// What S3 says about a stored object: its length and the headers a cache needs.
package struct S3ObjectInfo: Sendable, Equatable {
    /// The object's length in bytes.
    package var size: Int
    /// The ETag as S3 sent it, quotes included (a multipart object's ends in `-N`, the number of parts).
    package var etag: String?
    /// The Content-Type it was stored with.
    package var contentType: String?
    /// The Last-Modified header, as sent (an HTTP date).
    package var lastModified: String?

    /// Object information from its parts.
    package init(size: Int, etag: String? = nil, contentType: String? = nil, lastModified: String? = nil) {
        self.size = size
        self.etag = etag
        self.contentType = contentType
        self.lastModified = lastModified
    }
}

/// A whole object read into memory: its bytes and what S3 said about it.
package struct S3Object: Sendable, Equatable {
    /// The object's bytes.
    package var data: Data
    /// Its length, ETag, Content-Type and Last-Modified.
    package var info: S3ObjectInfo

    /// An object from its bytes and information.
    package init(data: Data, info: S3ObjectInfo) {
        self.data = data
        self.info = info
    }
}

/// How an object is written.
package struct S3PutOptions: Sendable, Equatable {
    /// The Content-Type stored with the object (S3 answers it on GET); nil stores S3's default.
    package var contentType: String?
    /// Write only if no object has the key yet (`If-None-Match: *`); an existing one makes the result
    /// `alreadyExists` and is left as it was.
    package var onlyIfAbsent: Bool

    /// Options with the given settings; by default no Content-Type and an unconditional write.
    package init(contentType: String? = nil, onlyIfAbsent: Bool = false) {
        self.contentType = contentType
        self.onlyIfAbsent = onlyIfAbsent
    }
}

/// What a write did.
package enum S3PutResult: Sendable, Equatable {
    /// The object was stored; S3's ETag for it.
    case stored(etag: String?)
    /// `onlyIfAbsent` was set and the key already had an object (412 Precondition Failed): nothing was written.
    case alreadyExists
}
