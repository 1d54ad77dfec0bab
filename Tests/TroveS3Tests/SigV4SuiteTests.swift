import Foundation
import Testing

@testable import TroveS3

/// The signer against AWS's SigV4 test suite (service "service", us-east-1, 2015-08-30T12:36:00Z, key
/// AKIDEXAMPLE): the canonical request, the string to sign and the signature of each case are AWS's
/// published values.
@Suite struct SigV4SuiteTests {
    static let credentials = S3Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let date = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let scope = "20150830/us-east-1/service/aws4_request"

    /// One case of the suite: the request as given (without X-Amz-Date, which the signer adds), and what AWS
    /// published for it. `stringToSignHash` is the last line of the string to sign.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let request: SigV4Request
        let canonicalRequest: String
        let stringToSignHash: String
        let signature: String
        var token: String? = nil

        var testDescription: String { name }
    }

    static func get(_ path: String, query: [SigV4Field] = [], headers: [SigV4Field] = []) -> SigV4Request {
        SigV4Request(
            method: "GET", path: path, query: query,
            headers: [SigV4Field("Host", "example.amazonaws.com")] + headers, payload: .empty)
    }

    /// The canonical request of a case whose only headers are host and x-amz-date.
    static func plain(_ method: String, _ path: String, _ query: String) -> String {
        "\(method)\n\(path)\n\(query)\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
            + emptyHash
    }

    static let cases: [Case] = [
        Case(
            name: "get-vanilla", request: get("/"), canonicalRequest: plain("GET", "/", ""),
            stringToSignHash: "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Case(
            name: "get-vanilla-query-order-key-case",
            request: get("/", query: [SigV4Field("Param2", "value2"), SigV4Field("Param1", "value1")]),
            canonicalRequest: plain("GET", "/", "Param1=value1&Param2=value2"),
            stringToSignHash: "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Case(
            name: "get-vanilla-query-order-key",
            request: get("/", query: [SigV4Field("Param1", "value2"), SigV4Field("Param1", "Value1")]),
            canonicalRequest: plain("GET", "/", "Param1=Value1&Param1=value2"),
            stringToSignHash: "704b4cef673542d84cdff252633f065e8daeba5f168b77116f8b1bcaf3d38f89",
            signature: "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"),
        Case(
            name: "get-vanilla-utf8-query", request: get("/", query: [SigV4Field("ሴ", "bar")]),
            canonicalRequest: plain("GET", "/", "%E1%88%B4=bar"),
            stringToSignHash: "eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
            signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Case(
            name: "get-utf8", request: get("/ሴ"), canonicalRequest: plain("GET", "/%E1%88%B4", ""),
            stringToSignHash: "2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
            signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        Case(
            name: "get-unreserved", request: get("/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
            canonicalRequest: plain("GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", ""),
            stringToSignHash: "6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9",
            signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Case(
            name: "get-header-value-trim",
            request: get(
                "/", headers: [SigV4Field("My-Header1", " value1"), SigV4Field("My-Header2", " \"a   b   c\"")]),
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\n"
                + "x-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n" + emptyHash,
            stringToSignHash: "a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Case(
            name: "get-header-key-duplicate",
            request: get(
                "/",
                headers: [
                    SigV4Field("My-Header1", "value2"), SigV4Field("My-Header1", "value2"),
                    SigV4Field("My-Header1", "value1")
                ]),
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\n"
                + "x-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n" + emptyHash,
            stringToSignHash: "dc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c",
            signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        Case(
            name: "post-vanilla-query",
            request: SigV4Request(
                method: "POST", path: "/", query: [SigV4Field("Param1", "value1")],
                headers: [SigV4Field("Host", "example.amazonaws.com")], payload: .empty),
            canonicalRequest: plain("POST", "/", "Param1=value1"),
            stringToSignHash: "9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
            signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        Case(
            name: "post-x-www-form-urlencoded",
            request: SigV4Request(
                method: "POST", path: "/",
                headers: [
                    SigV4Field("Content-Type", "application/x-www-form-urlencoded"),
                    SigV4Field("Host", "example.amazonaws.com")
                ],
                payload: .hashing(Data("Param1=value1".utf8))),
            canonicalRequest: "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\n"
                + "x-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n"
                + "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
            stringToSignHash: "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281",
            signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
        Case(
            name: "get-vanilla-with-session-token", request: get("/"),
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n"
                + "x-amz-security-token:6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267\n\n"
                + "host;x-amz-date;x-amz-security-token\n" + emptyHash,
            stringToSignHash: "067b36aa60031588cea4a4cde1f21215227a047690c72247f1d70b32fbbfad2b",
            signature: "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8",
            token: "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267")
    ]

    @Test(arguments: cases) func matchesThePublishedSuite(_ suiteCase: Case) {
        var credentials = Self.credentials
        credentials.sessionToken = suiteCase.token
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")
        #expect(!signer.sendsContentHash)
        let signed = signer.sign(suiteCase.request, at: Self.date)
        #expect(signed.canonicalRequest == suiteCase.canonicalRequest)
        #expect(
            signed.stringToSign == "AWS4-HMAC-SHA256\n20150830T123600Z\n\(Self.scope)\n\(suiteCase.stringToSignHash)")
        #expect(signed.signature == suiteCase.signature)
        let signedHeaders = suiteCase.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().last!
        #expect(
            signed.authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/\(Self.scope), SignedHeaders=\(signedHeaders), "
                + "Signature=\(suiteCase.signature)")
    }

    @Test func theSignerAddsItsHeadersAndDropsCallersCopies() {
        var credentials = Self.credentials
        credentials.sessionToken = "token"
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        let request = Self.get(
            "/", headers: [SigV4Field("X-Amz-Date", "19990101T000000Z"), SigV4Field("Authorization", "x")])
        let signed = signer.sign(request, at: Self.date)
        let names = signed.headers.map { $0.name.lowercased() }
        #expect(names == ["host", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "authorization"])
        #expect(signed.headers.first { $0.name == "x-amz-date" }?.value == "20150830T123600Z")
        #expect(signed.headers.first { $0.name == "x-amz-content-sha256" }?.value == Self.emptyHash)
    }

    @Test func unsignedPayloadIsSignedAsTheLiteral() {
        let signer = SigV4Signer(credentials: Self.credentials, region: "eu-west-1")
        let request = SigV4Request(
            method: "PUT", path: "/b/k", headers: [SigV4Field("host", "127.0.0.1:8333")], payload: .unsigned)
        let signed = signer.sign(request, at: Self.date)
        #expect(signed.canonicalRequest.hasSuffix("\nUNSIGNED-PAYLOAD"))
        #expect(signed.canonicalRequest.contains("x-amz-content-sha256:UNSIGNED-PAYLOAD\n"))
        #expect(signed.stringToSign.contains("\n20150830/eu-west-1/s3/aws4_request\n"))
    }

    @Test func timestampsAreUTCCalendarDates() {
        #expect(SigV4Timestamp(Self.date).dateTime == "20150830T123600Z")
        #expect(SigV4Timestamp(Self.date).date == "20150830")
        #expect(SigV4Timestamp(Date(timeIntervalSince1970: 0)).dateTime == "19700101T000000Z")
        #expect(SigV4Timestamp(Date(timeIntervalSince1970: -1)).dateTime == "19691231T235959Z")
        #expect(SigV4Timestamp(Date(timeIntervalSince1970: 951_782_400)).dateTime == "20000229T000000Z")
        #expect(SigV4Timestamp(Date(timeIntervalSince1970: 4_107_542_399.9)).dateTime == "21000228T235959Z")
        #expect(SigV4Timestamp(Date(timeIntervalSince1970: 4_107_542_400)).dateTime == "21000301T000000Z")
    }
}
