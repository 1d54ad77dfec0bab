import Foundation
import Testing
import TroveTestSupport

@testable import TroveS3

/// Where credentials come from, and that the secret and the token never show in what a person or a log sees.
@Suite struct S3CredentialsTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY"
    static let token = "FwoGZXIvYXdzEXAMPLESESSIONTOKENxyz"

    @Test func environmentVariablesComeFirst() throws {
        let credentials = try S3Credentials.resolve(environment: [
            "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": Self.secret, "AWS_SESSION_TOKEN": Self.token,
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"
        ])
        #expect(
            credentials == S3Credentials(accessKeyID: "AKIAENV", secretAccessKey: Self.secret, sessionToken: Self.token)
        )
        let withoutToken = try S3Credentials.resolve(environment: [
            "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": Self.secret, "AWS_SESSION_TOKEN": ""
        ])
        #expect(withoutToken.sessionToken == nil)
    }

    @Test func halfAPairNamesTheMissingVariableAndNotTheOther() {
        #expect(throws: S3Error.self) { try S3Credentials.resolve(environment: ["AWS_SECRET_ACCESS_KEY": Self.secret]) }
        do {
            _ = try S3Credentials.resolve(environment: ["AWS_SECRET_ACCESS_KEY": Self.secret])
        } catch {
            #expect("\(error)".contains("AWS_ACCESS_KEY_ID is not"))
            #expect(!"\(error)".contains(Self.secret))
        }
    }

    @Test func theSharedFileGivesTheProfileAskedFor() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("credentials")
            try Data(
                """
                # written by aws configure
                [default]
                aws_access_key_id = AKIADEFAULT
                aws_secret_access_key = \(Self.secret)

                [profile ci]
                AWS_ACCESS_KEY_ID=AKIACI
                aws_secret_access_key=ci-secret
                aws_session_token = \(Self.token)
                ; an old name for the token
                [legacy]
                aws_access_key_id = AKIALEGACY
                aws_secret_access_key = legacy-secret
                aws_security_token = legacy-token
                """.utf8
            ).write(to: file)
            let base = ["AWS_SHARED_CREDENTIALS_FILE": file.path]
            #expect(try S3Credentials.resolve(environment: base).accessKeyID == "AKIADEFAULT")
            #expect(try S3Credentials.resolve(environment: base).secretAccessKey == Self.secret)
            let ci = try S3Credentials.resolve(environment: base.merging(["AWS_PROFILE": "ci"]) { $1 })
            #expect(ci == S3Credentials(accessKeyID: "AKIACI", secretAccessKey: "ci-secret", sessionToken: Self.token))
            let legacy = try S3Credentials.resolve(environment: base.merging(["AWS_PROFILE": "legacy"]) { $1 })
            #expect(legacy.sessionToken == "legacy-token")

            do {
                _ = try S3Credentials.resolve(environment: base.merging(["AWS_PROFILE": "prod"]) { $1 })
                Issue.record("an unknown profile was accepted")
            } catch {
                let message = "\(error)"
                #expect(message.contains("profile 'prod' is not in \(file.path)"))
                #expect(message.contains("profiles there: ci, default, legacy"))
                #expect(!message.contains(Self.secret) && !message.contains(Self.token))
            }
        }
    }

    @Test func homeDirectoryHoldsTheDefaultFile() async throws {
        try await withTemporaryDirectory { home in
            try FileManager.default.createDirectory(
                at: home.appendingPathComponent(".aws"), withIntermediateDirectories: true)
            try Data("[default]\naws_access_key_id=AKIAHOME\naws_secret_access_key=s\n".utf8)
                .write(to: home.appendingPathComponent(".aws/credentials"))
            #expect(try S3Credentials.resolve(environment: ["HOME": home.path]).accessKeyID == "AKIAHOME")
            #expect(try S3Credentials.resolve(environment: [:], homeDirectory: home.path).accessKeyID == "AKIAHOME")

            do {
                _ = try S3Credentials.resolve(environment: ["HOME": home.appendingPathComponent("nobody").path])
                Issue.record("a missing file was accepted")
            } catch {
                #expect("\(error)".contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"))
                #expect("\(error)".contains("nobody/.aws/credentials cannot be read"))
            }
        }
    }

    @Test func aProfileWithoutItsSecretIsNamed() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("credentials")
            try Data("[default]\naws_access_key_id=AKIA\n".utf8).write(to: file)
            #expect {
                try S3Credentials.resolve(environment: ["AWS_SHARED_CREDENTIALS_FILE": file.path])
            } throws: { error in
                "\(error)".contains("profile 'default' in \(file.path) has no aws_secret_access_key")
            }
        }
    }

    @Test func secretsNeverShowInDescriptionsDumpsOrMirrors() throws {
        let credentials = S3Credentials(
            accessKeyID: "AKIASHOWN", secretAccessKey: Self.secret, sessionToken: Self.token)
        let configuration = try S3Configuration(
            endpoint: URL(string: "http://127.0.0.1:9000")!, region: "us-east-1", bucket: "b", credentials: credentials)
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1")
        let signature = signer.sign(
            SigV4Request(method: "GET", path: "/b/k", headers: [SigV4Field("host", "h")], payload: .empty), at: Date())
        let client = S3Client(configuration: configuration)
        var texts: [String] = []
        for value in [credentials, configuration, signer, signature, client] as [Any] {
            texts.append("\(value)")
            texts.append(String(reflecting: value))
            var dumped = ""
            dump(value, to: &dumped)
            texts.append(dumped)
        }
        for text in texts {
            #expect(!text.contains(Self.secret), "the secret shows in \(text)")
            #expect(!text.contains(Self.token), "the token shows in \(text)")
        }
        #expect(texts[0].contains("AKIASHOWN") && texts[0].contains("***"))
        // What a server echoes is scrubbed before it is shown.
        #expect(credentials.redacting("bad key \(Self.secret) and \(Self.token)") == "bad key *** and ***")
    }
}
