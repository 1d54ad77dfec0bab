import AsyncHTTPClient
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The floor under the S3 tier's GET: one AWS SigV4-signed GET (`UNSIGNED-PAYLOAD`, path-style, the
/// `Authorization` header) of one object through AsyncHTTPClient's shared client, with no retry, deadline,
/// streaming limit or counter. Written here, from AWS's published SigV4 steps, so the baseline runs none of
/// Trove's code: the server verifies a signature for both sides.
struct BareSignedGET: Sendable {
    let endpoint: URL
    let region: String
    let accessKeyID: String
    let secretAccessKey: String

    /// The object's bytes; throws unless the server answers 200.
    func get(bucket: String, key: String) async throws -> Data {
        let path = "/\(bucket)/\(key)"
        let host = endpoint.port.map { "\(endpoint.host!):\($0)" } ?? endpoint.host!
        let stamp = Self.timestamp()  // yyyyMMdd'T'HHmmss'Z'
        let day = String(stamp.prefix(8))
        let scope = "\(day)/\(region)/s3/aws4_request"
        let payload = "UNSIGNED-PAYLOAD"
        let signedHeaders = "host;x-amz-content-sha256;x-amz-date"
        // Object keys here are [a-z0-9/], which SigV4's URI encoding leaves as they are.
        let canonical = [
            "GET", path, "", "host:\(host)", "x-amz-content-sha256:\(payload)", "x-amz-date:\(stamp)", "",
            signedHeaders, payload
        ].joined(separator: "\n")
        let toSign = ["AWS4-HMAC-SHA256", stamp, scope, Self.hex(SHA256.hash(data: Data(canonical.utf8)))]
            .joined(separator: "\n")
        var signingKey = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, "s3", "aws4_request"] {
            signingKey = SymmetricKey(
                data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: signingKey)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: signingKey))

        var request = HTTPClientRequest(url: endpoint.absoluteString + path)
        request.headers.add(name: "x-amz-date", value: stamp)
        request.headers.add(name: "x-amz-content-sha256", value: payload)
        request.headers.add(
            name: "Authorization",
            value: "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), "
                + "Signature=\(signature)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 30)
        guard response.status == .ok else { throw URLError(.badServerResponse) }
        return Data(body.readableBytesView)
    }

    /// Now in UTC as SigV4 writes it, from the C library (a `DateFormatter` would cost more than the signing).
    private static func timestamp() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
