import Foundation
import TroveCore

// RFC 9111 §4.3.5: a 200 to HEAD describes the GET response a cache may hold for the URL. When it describes
// the same representation (the same validators, or neither has any and their lengths agree), the stored GET
// response is updated from it as a 304 would update it (`FreshnessPolicy.revalidated`), and the HEAD is
// answered with the stored fields so updated.

extension DataPipeline {
    /// The answer to a HEAD that reached the origin, after it freshened the stored GET response it
    /// describes; the origin's answer itself when none is stored or it describes another representation.
    func freshening(byHead response: DataResponse, for request: DataRequest) async -> DataResponse {
        var get = request
        get.method = "GET"
        guard
            let entry = await parts.disk.cached(
                get.cacheKey, includingStale: true, for: parts.headers(request.headers)),
            Self.describeOneRepresentation(entry.metadata.headerFields, response.headerFields)
        else { return response }
        let head = ResponseMetadata(
            url: request.url, statusCode: response.status, contentType: response.contentType, directives: .none,
            headerFields: response.headerFields)
        let (refreshed, storable) = parts.freshness.revalidated(entry.metadata, by: head)
        await parts.cacheWriter.storeRevalidated(refreshed, storable: storable, forKey: entry.key)
        // The copy in memory carries the fields as they were.
        _ = memoryCache.removeValue(forKey: get.cacheKey)
        var answer = response
        answer.headerFields = refreshed.headerFields
        return answer
    }

    /// Whether a stored response's fields and a HEAD's describe one representation: the same `ETag` and
    /// `Last-Modified` when either has one, else no `Content-Length` that differs.
    package static func describeOneRepresentation(_ stored: [HeaderField], _ head: [HeaderField]) -> Bool {
        let validators = ["etag", "last-modified"]
        let storedValidators = validators.map { stored.first(named: $0) }
        let headValidators = validators.map { head.first(named: $0) }
        if (storedValidators + headValidators).contains(where: { $0 != nil }) {
            return storedValidators == headValidators
        }
        guard let storedLength = stored.first(named: "content-length"),
            let headLength = head.first(named: "content-length")
        else { return true }
        return storedLength == headLength
    }
}
