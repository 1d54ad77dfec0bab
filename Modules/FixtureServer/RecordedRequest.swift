import Foundation

/// One request as the fixture server received it, so a test can check what a client really sent.
public struct RecordedRequest: Sendable, Equatable {
    /// The request method, e.g. GET.
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The query string without '?', when there was one.
    public var query: String?
    /// Header names lowercased; repeated headers joined with ", ".
    public var headers: [String: String]
    /// The request body (up to 1 MiB is read); empty when there was none.
    public var body: Data
    /// The client's port on the connection the request came on: requests with the same one shared a
    /// connection.
    public var clientPort: Int?

    /// A request as given.
    public init(
        method: String, path: String, query: String?, headers: [String: String], body: Data = Data(),
        clientPort: Int? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.clientPort = clientPort
    }

    /// The value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
