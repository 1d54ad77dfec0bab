import Crypto
import Foundation

/// Signs requests with AWS Signature Version 4 in the `Authorization` header: canonical request, string to
/// sign, a signing key derived from the secret for the day, region and service, and the HMAC-SHA256 of the
/// string to sign under it.
package struct SigV4Signer: Sendable {
    /// The keys to sign with.
    package var credentials: S3Credentials
    /// The region in the credential scope, e.g. "us-east-1".
    package var region: String
    /// The service in the credential scope: "s3".
    package var service: String
    /// Whether to add and sign `x-amz-content-sha256` (the body's hash): S3 requires it, other services do not
    /// use it. True for "s3".
    package var sendsContentHash: Bool

    /// A signer for `service` in `region`.
    package init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.sendsContentHash = service == "s3"
    }

    /// Signs `request` as of `date`: adds `x-amz-date`, `x-amz-content-sha256` (when `sendsContentHash`) and
    /// `x-amz-security-token` (with a session token) to the signed headers, and returns them with the
    /// `Authorization` header and the intermediate strings.
    package func sign(_ request: SigV4Request, at date: Date) -> SigV4Signature {
        let time = SigV4Timestamp(date)
        var headers = request.headers.filter { !Self.addedByTheSigner.contains($0.name.lowercased()) }
        headers.append(SigV4Field("x-amz-date", time.dateTime))
        if sendsContentHash { headers.append(SigV4Field("x-amz-content-sha256", request.payload.contentSHA256)) }
        if let token = credentials.sessionToken { headers.append(SigV4Field("x-amz-security-token", token)) }

        let canonical = Self.canonicalHeaders(headers)
        let signedHeaders = canonical.map(\.name).joined(separator: ";")
        let canonicalRequest = [
            request.method, request.encodedPath, request.encodedQuery,
            canonical.map { "\($0.name):\($0.value)\n" }.joined(), signedHeaders, request.payload.contentSHA256
        ].joined(separator: "\n")
        let scope = "\(time.date)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", time.dateTime, scope,
            SigV4Encoding.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))
        ].joined(separator: "\n")
        let signature = SigV4Encoding.hex(
            HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: signingKey(date: time.date)))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return SigV4Signature(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
            authorization: authorization, headers: headers + [SigV4Field("Authorization", authorization)])
    }

    /// The headers `sign` sets itself: a caller's copy is dropped so it can never be signed twice.
    private static let addedByTheSigner: Set<String> = [
        "x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "authorization"
    ]

    /// HMAC chain `AWS4` + secret → date → region → service → `aws4_request`.
    func signingKey(date: String) -> SymmetricKey {
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [date, region, service, "aws4_request"] {
            key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key))
        }
        return key
    }

    /// Lower-case names, sorted; values trimmed with inner runs of spaces collapsed; repeated names joined
    /// with commas in the order given.
    static func canonicalHeaders(_ headers: [SigV4Field]) -> [SigV4Field] {
        var merged: [String: [String]] = [:]
        for header in headers {
            merged[header.name.lowercased(), default: []].append(collapsingSpaces(header.value))
        }
        return merged.keys.sorted().map { SigV4Field($0, merged[$0]!.joined(separator: ",")) }
    }

    private static func collapsingSpaces(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}

/// A signed request's headers and the strings the signature was made from (the tests check these against
/// AWS's published values).
///
/// With a session token, `canonicalRequest` and `headers` hold it, so `description`, `debugDescription` and the
/// mirror show only the signature and the header names.
package struct SigV4Signature: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The canonical request.
    package let canonicalRequest: String
    /// The string to sign.
    package let stringToSign: String
    /// The signature, lower-case hex.
    package let signature: String
    /// The `Authorization` header's value.
    package let authorization: String
    /// Every header to send: the request's, the signer's (`x-amz-date`, ...) and `Authorization`.
    package let headers: [SigV4Field]

    /// `SigV4Signature(authorization: ..., headers: [names])`: no header values, which may hold a session token.
    package var description: String {
        "SigV4Signature(authorization: \(authorization), headers: \(headers.map(\.name)))"
    }

    /// The same as `description`.
    package var debugDescription: String { description }

    /// The authorization and the header names only.
    package var customMirror: Mirror {
        Mirror(self, children: ["authorization": authorization, "headers": headers.map(\.name)])
    }
}
