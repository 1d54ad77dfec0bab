import Foundation

/// The keys requests are signed with: an access key ID, its secret, and for temporary credentials a session
/// token.
///
/// The secret and the token never appear in `description`, `debugDescription`, `dump` or a debugger: they
/// show as `***`. Only the signer reads them.
package struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access key ID (`AWS_ACCESS_KEY_ID`): not secret, it names the key in messages.
    package var accessKeyID: String
    /// The secret access key (`AWS_SECRET_ACCESS_KEY`).
    package var secretAccessKey: String
    /// The session token of temporary credentials (`AWS_SESSION_TOKEN`), sent as `x-amz-security-token`.
    package var sessionToken: String?

    /// Credentials from their parts.
    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `S3Credentials(accessKeyID: AKID..., secretAccessKey: ***, sessionToken: ***)`.
    package var description: String {
        "S3Credentials(accessKeyID: \(accessKeyID), secretAccessKey: ***"
            + (sessionToken == nil ? ")" : ", sessionToken: ***)")
    }

    /// The same as `description`: a debug print must not show the secret either.
    package var debugDescription: String { description }

    /// What `dump` and debuggers show: the access key ID, the rest as `***`.
    package var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessKeyID": accessKeyID, "secretAccessKey": "***",
                "sessionToken": sessionToken == nil ? "none" : "***"
            ])
    }

    /// `text` with every occurrence of the secret and the token replaced by `***`: applied to anything a
    /// server sent back before it goes into an error or a log line.
    func redacting(_ text: String) -> String {
        var text = text
        for secret in [secretAccessKey, sessionToken ?? ""] where secret.count >= 4 {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        return text
    }
}
