import Foundation

/// Takes a response body piece by piece as it arrives, so a body on its way to disk is never held whole in
/// memory (what a prefetch wants: it stores the bytes and needs none of them itself).
///
/// A fetcher calls `begin` once for every successful (2xx) response, an empty body's included, with the
/// response's metadata, then `write` for each piece of the body in order; a redirect's, a 304's or an error's body never
/// reaches the sink. Calls come one at a time, on the fetcher's own thread (for HTTP, a network event
/// loop), so each must be quick. A sink that throws ends the fetch with its error. One sink serves one
/// attempt: a retried fetch starts over with a new one, and the caller discards a sink whose fetch failed.
package protocol FetchBodySink: Sendable {
    /// The response's body is about to arrive; nothing has been written yet.
    func begin(_ response: ResponseMetadata) throws
    /// The next piece of the body.
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// What a fetch into a `FetchBodySink` produced: a body (in the sink), or word that the cached copy is
/// still current.
package enum StreamedFetchOutcome: Sendable {
    /// The whole body went to the sink: `length` bytes, with the response's metadata.
    case streamed(ResponseMetadata, length: Int)
    /// 304: the cached copy is still current; the sink got nothing.
    case notModified(ResponseMetadata)
}
