import Foundation
import TroveCore

/// Decodes RFC 2397 data: URLs (`data:[<type>][;base64],<payload>`), so inline images go through the
/// same pipeline as fetched ones.
package struct DataURLFetcher: Fetcher {
    /// Registered as "data".
    package let name = "data"
    /// Serves `data:` URLs (RFC 2397, base64 or percent-encoded).
    package let schemes: Set<String> = ["data"]

    /// A fetcher that decodes `data:` URLs in place; no I/O.
    package init() {}

    /// The URL's payload as one chunk, with its media type; a malformed URL throws `malformedURL`.
    package func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        let text = request.url.absoluteString
        guard let comma = text.firstIndex(of: ",") else {
            throw TroveError.malformedURL(
                url: String(text.prefix(64)), reason: "a data: URL needs a ',' before its payload")
        }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        let payload = String(text[text.index(after: comma)...])
        let isBase64 = header.hasSuffix(";base64")
        let mediaType = isBase64 ? String(header.dropLast(7)) : String(header)
        let data: Data?
        if isBase64 {
            data = Data(base64Encoded: payload.removingPercentEncoding ?? payload)
        } else {
            data = payload.removingPercentEncoding.map { Data($0.utf8) }
        }
        guard let data else {
            throw TroveError.malformedURL(
                url: String(text.prefix(64)),
                reason: "the data: URL payload is not valid "
                    + (isBase64 ? "base64" : "percent-encoding"))
        }
        guard data.count <= request.maxBytes else {
            throw TroveError.tooLarge(url: String(text.prefix(64)), limit: request.maxBytes)
        }
        progress(FetchProgress(received: Int64(data.count), expected: Int64(data.count)))
        return .data(
            data,
            ResponseMetadata(
                url: request.url, statusCode: 200,
                contentType: mediaType.isEmpty ? nil : mediaType,
                expectedLength: Int64(data.count)))
    }
}
