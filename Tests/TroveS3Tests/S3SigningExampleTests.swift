import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import TroveS3

/// Requests as the client builds them, checked against the worked examples of S3's SigV4 documentation
/// (bucket `examplebucket`, key AKIAIOSFODNN7EXAMPLE, 2013-05-24T00:00:00Z), whose signatures are published;
/// and the addressing styles, endpoints and key encodings around them.
@Suite struct S3SigningExampleTests {
    static let credentials = S3Credentials(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static func client(
        endpoint: String = "https://s3.amazonaws.com", bucket: String = "examplebucket",
        addressing: S3Addressing = .virtualHost
    ) throws -> S3Client {
        S3Client(
            configuration: try S3Configuration(
                endpoint: URL(string: endpoint)!, region: "us-east-1", bucket: bucket, credentials: credentials,
                addressing: addressing))
    }

    static func authorization(_ request: HTTPClientRequest) -> String {
        request.headers.first(name: "authorization") ?? ""
    }

    @Test func getObjectMatchesTheDocumentedSignature() throws {
        let request = S3Request(method: .GET, key: "test.txt", headers: [SigV4Field("Range", "bytes=0-9")])
        let signed = try Self.client().signed(request, at: Self.date)
        #expect(signed.url == "https://examplebucket.s3.amazonaws.com/test.txt")
        #expect(signed.headers.first(name: "host") == "examplebucket.s3.amazonaws.com")
        #expect(signed.headers.first(name: "x-amz-content-sha256") == Self.emptyHash)
        #expect(
            Self.authorization(signed)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")

        // The intermediate strings, as the documentation prints them.
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1")
        let signature = signer.sign(
            SigV4Request(
                method: "GET", path: "/test.txt",
                headers: [SigV4Field("Host", "examplebucket.s3.amazonaws.com"), SigV4Field("Range", "bytes=0-9")],
                payload: .empty),
            at: Self.date)
        #expect(
            signature.canonicalRequest
                == "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
                + "x-amz-content-sha256:\(Self.emptyHash)\nx-amz-date:20130524T000000Z\n\n"
                + "host;range;x-amz-content-sha256;x-amz-date\n\(Self.emptyHash)")
        #expect(
            signature.stringToSign
                == "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
                + "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
    }

    @Test func putObjectSignsTheBodyHashAndEncodesTheKeyOnce() throws {
        var request = S3Request(method: .PUT, key: "test$file.text", body: ByteBuffer(string: "Welcome to Amazon S3."))
        request.headers = [
            SigV4Field("Date", "Fri, 24 May 2013 00:00:00 GMT"), SigV4Field("x-amz-storage-class", "REDUCED_REDUNDANCY")
        ]
        let signed = try Self.client().signed(request, at: Self.date)
        #expect(signed.url == "https://examplebucket.s3.amazonaws.com/test%24file.text")
        #expect(
            signed.headers.first(name: "x-amz-content-sha256")
                == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        #expect(
            Self.authorization(signed)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
                + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func listObjectsCanonicalisesTheQuery() throws {
        let request = S3Request(method: .GET, key: nil, query: [SigV4Field("prefix", "J"), SigV4Field("max-keys", "2")])
        let signed = try Self.client().signed(request, at: Self.date)
        #expect(signed.url == "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J")
        #expect(
            Self.authorization(signed).hasSuffix(
                "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"))
    }

    @Test func pathStyleAndCustomEndpointsPutTheBucketInThePathAndThePortInTheHost() throws {
        let aws = try Self.client(addressing: .path).signed(S3Request(method: .GET, key: "test.txt"), at: Self.date)
        #expect(aws.url == "https://s3.amazonaws.com/examplebucket/test.txt")
        #expect(aws.headers.first(name: "host") == "s3.amazonaws.com")

        let local = try Self.client(endpoint: "http://127.0.0.1:8333/", bucket: "b", addressing: .path)
        let signed = local.signed(S3Request(method: .HEAD, key: "dir/a.png"), at: Self.date)
        #expect(signed.url == "http://127.0.0.1:8333/b/dir/a.png")
        #expect(signed.headers.first(name: "host") == "127.0.0.1:8333")
        #expect(local.configuration.endpointText == "http://127.0.0.1:8333")

        let defaultPort = try Self.client(endpoint: "https://minio.example:443", bucket: "b", addressing: .virtualHost)
        #expect(defaultPort.signed(S3Request(method: .GET, key: "k"), at: Self.date).url == "https://b.minio.example/k")
        let otherPort = try Self.client(endpoint: "https://minio.example:9000", bucket: "b", addressing: .virtualHost)
        #expect(
            otherPort.signed(S3Request(method: .GET, key: "k"), at: Self.date).headers.first(name: "host")
                == "b.minio.example:9000")
    }

    @Test func keysAreEncodedOnceByteForByte() throws {
        let client = try Self.client(endpoint: "http://127.0.0.1:9000", bucket: "b", addressing: .path)
        let key = "photos/a b+c=d&e;f,g:h@i!j*k'l(m)~n%o/ü🙂//x.png"
        let signed = client.signed(S3Request(method: .GET, key: key), at: Self.date)
        #expect(
            signed.url
                == "http://127.0.0.1:9000/b/photos/a%20b%2Bc%3Dd%26e%3Bf%2Cg%3Ah%40i%21j%2Ak%27l%28m%29~n%25o/"
                + "%C3%BC%F0%9F%99%82//x.png")
        // Query names and values encode "/" too.
        let query = SigV4Request(
            method: "GET", path: "/", query: [SigV4Field("uploadId", "a/b+c="), SigV4Field("uploads", "")],
            headers: [], payload: .empty)
        #expect(query.encodedQuery == "uploadId=a%2Fb%2Bc%3D&uploads=")
    }

    @Test func endpointsThatCannotWorkAreRefusedWithTheReason() {
        func reason(_ endpoint: String, bucket: String = "b", partSize: Int = 8 << 20) -> String {
            do {
                _ = try S3Configuration(
                    endpoint: URL(string: endpoint)!, region: "us-east-1", bucket: bucket,
                    credentials: Self.credentials,
                    partSize: partSize)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(reason("ftp://host").contains("is not http(s)://host[:port]"))
        #expect(reason("http://host/prefix").contains("must have no path"))
        #expect(reason("http://host", bucket: "").contains("bucket name"))
        #expect(reason("http://host", partSize: 1 << 20).contains("5 MiB"))
        #expect(reason("https://host:9000") == "accepted")
    }
}
