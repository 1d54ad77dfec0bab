/// One request as the fixture server received it, so a test can check what a client really sent.
public struct RecordedRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    /// The query string without '?', when there was one.
    public var query: String?
    /// Header names lowercased; repeated headers joined with ", ".
    public var headers: [String: String]

    public init(method: String, path: String, query: String?, headers: [String: String]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// The value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
