import Foundation
import Testing

@testable import TroveS3

/// S3's XML answers read into errors whose messages say what to fix, and the backoff schedule.
@Suite struct S3ErrorTests {
    static func serviceError(code: String, status: Int = 403, key: String? = "a.png") -> S3ServiceError {
        S3ServiceError(
            status: status, code: code, message: "server text", operation: "GET a.png", bucket: "photos", key: key,
            endpoint: "http://127.0.0.1:8333")
    }

    @Test func errorDocumentsAreReadWithOrWithoutTheirNamespace() {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Code>NoSuchBucket</Code>\
            <Message>The specified bucket does not exist</Message><BucketName>photos</BucketName>\
            <Key>a &amp; b.png</Key><RequestId>18EE34</RequestId></Error>
            """
        #expect(
            S3ResponseXML.error(in: Array(body.utf8))
                == S3ResponseXML.ErrorFields(
                    code: "NoSuchBucket", message: "The specified bucket does not exist", bucket: "photos",
                    key: "a & b.png", requestID: "18EE34"))
        #expect(S3ResponseXML.error(in: Array("<html><body>502</body></html>".utf8)) == nil)
        #expect(S3ResponseXML.error(in: [UInt8]()) == nil)
        let initiated =
            "<InitiateMultipartUploadResult><Bucket>b</Bucket><UploadId> id-1 </UploadId></InitiateMultipartUploadResult>"
        #expect(
            S3ResponseXML.field("UploadId", of: "InitiateMultipartUploadResult", in: Array(initiated.utf8)) == "id-1")
    }

    @Test func completionListsPartsInOrderWithEscapedETags() {
        #expect(
            S3ResponseXML.completeMultipartUpload(parts: [(1, "\"abc\""), (2, "\"d&e\"")])
                == "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + "<Part><PartNumber>1</PartNumber><ETag>&quot;abc&quot;</ETag></Part>"
                + "<Part><PartNumber>2</PartNumber><ETag>&quot;d&amp;e&quot;</ETag></Part></CompleteMultipartUpload>")
    }

    @Test func messagesNameWhatToFix() {
        let noBucket = S3Error.service(Self.serviceError(code: "NoSuchBucket", status: 404)).description
        #expect(noBucket.contains("bucket photos does not exist at endpoint http://127.0.0.1:8333"))
        let signature = S3Error.service(Self.serviceError(code: "SignatureDoesNotMatch")).description
        #expect(signature.contains("the credentials were refused"))
        #expect(signature.contains("check AWS_SECRET_ACCESS_KEY"))
        let unknownKey = S3Error.service(Self.serviceError(code: "InvalidAccessKeyId")).description
        #expect(unknownKey.contains("check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"))
        #expect(
            S3Error.service(Self.serviceError(code: "ExpiredToken", status: 400)).description.contains(
                "AWS_SESSION_TOKEN"))
        #expect(S3Error.service(Self.serviceError(code: "RequestTimeTooSkewed")).description.contains("clock"))
        #expect(S3Error.service(Self.serviceError(code: "", status: 403)).description.contains("check the credentials"))
        #expect(
            S3Error.connectionFailed(endpoint: "http://127.0.0.1:1", reason: "connection refused").description
                == "could not reach S3 at http://127.0.0.1:1: connection refused; check that the endpoint is right "
                + "and the server is up")
    }

    @Test func onlyTransientFailuresAreRetried() {
        for code in ["SlowDown", "InternalError", "ServiceUnavailable"] {
            #expect(S3Error.service(Self.serviceError(code: code, status: 503)).isRetryable, "\(code)")
        }
        #expect(S3Error.service(Self.serviceError(code: "RequestTimeout", status: 400)).isRetryable)
        #expect(S3Error.connectionFailed(endpoint: "e", reason: "r").isRetryable)
        for code in ["NoSuchBucket", "SignatureDoesNotMatch", "AccessDenied", "PreconditionFailed"] {
            #expect(!S3Error.service(Self.serviceError(code: code, status: 403)).isRetryable, "\(code)")
        }
        #expect(!S3Error.deadlineExceeded(operation: "GET k", after: .seconds(1)).isRetryable)
        #expect(!S3Error.tooLarge(operation: "GET k", limit: 1).isRetryable)
    }

    @Test func backoffDoublesUpToTheCapWithJitterBelowIt() {
        let policy = S3RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(1), jitter: 0.5)
        #expect(
            (0..<6).map { policy.delay(afterAttempt: $0, random: 0) } == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)
            ])
        #expect(policy.delay(afterAttempt: 1, random: 1) == .milliseconds(100))
        #expect(policy.delay(afterAttempt: 1_000_000, random: 0.5) == .milliseconds(750))
        #expect(S3RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }
}
