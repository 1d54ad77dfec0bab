import Foundation
import TroveCore

// A conditional request answered by the cache (RFC 9111 §4.3.2): when the client already holds what the
// response carries (its `If-None-Match` names the response's ETag, or, without one, its
// `If-Modified-Since` is not older than the Last-Modified), a 304 says so instead of sending the bytes again.

extension DataResponse {
    /// The fields a 304 carries from the 200 it stands for (RFC 9110 §15.4.5), with the cache's `Age` and
    /// the `Last-Modified` a client's next condition is made from.
    private static let notModifiedFields: Set<String> = [
        "cache-control", "content-location", "date", "etag", "expires", "vary", "last-modified", "age"
    ]

    /// 304 Not Modified, with no body, when this is a 200 to a GET or HEAD whose conditions it satisfies;
    /// nil otherwise. Without a `Last-Modified`, `If-Modified-Since` is judged against the response's `Date`
    /// (RFC 9111 §4.3.2). On a miss the conditions went to the origin (`OriginStage`): its 304 arrives as
    /// such, and its 200 is judged here again, which a well-behaved origin's never satisfies.
    func notModified(answering request: DataRequest) -> DataResponse? {
        guard status == 200, request.method == "GET" || request.method == "HEAD" else { return nil }
        let ifNoneMatch = request.headers.value(named: "if-none-match")
        let ifModifiedSince = request.headers.value(named: "if-modified-since")
        guard ifNoneMatch != nil || ifModifiedSince != nil,
            HTTPConditions.notModified(
                ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince,
                entityTag: headerFields.first(named: "etag"),
                lastModified: headerFields.first(named: "last-modified") ?? headerFields.first(named: "date"))
        else { return nil }
        var answer = self
        answer.status = 304
        answer.data = Data()
        answer.headerFields = headerFields.filter { Self.notModifiedFields.contains($0.name.lowercased()) }
        return answer
    }
}
