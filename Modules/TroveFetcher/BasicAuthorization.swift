import Foundation
import TroveCore

extension HTTPFetcher {
    /// The Authorization header for HTTP Basic authentication (RFC 7617), to put in `FetchRequest.headers`
    /// (or a pipeline's headers). Throws `invalidConfiguration` for a user name containing ':', which the
    /// server would split at.
    package static func basicAuthorization(user: String, password: String) throws -> (name: String, value: String) {
        guard !user.contains(":") else {
            throw TroveError.invalidConfiguration("a basic-auth user name cannot contain ':' (got '\(user)')")
        }
        let token = Data("\(user):\(password)".utf8).base64EncodedString()
        return (name: "Authorization", value: "Basic \(token)")
    }
}
