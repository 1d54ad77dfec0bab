import Foundation

extension S3Credentials {
    /// Credentials the way AWS tools find them: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with
    /// `AWS_SESSION_TOKEN` when set) from `environment`; else the profile `AWS_PROFILE` (default "default") of
    /// the shared credentials file at `AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials` under `HOME`
    /// (from `environment`, else `homeDirectory`).
    ///
    /// Throws `S3Error.missingCredentials` naming what to set when neither gives a key and its secret. The
    /// message names variables, files and profiles, never a secret.
    package static func resolve(environment: [String: String], homeDirectory: String? = nil) throws -> S3Credentials {
        func value(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingWhitespace(), !value.isEmpty else { return nil }
            return value
        }
        let key = value("AWS_ACCESS_KEY_ID")
        let secret = value("AWS_SECRET_ACCESS_KEY")
        switch (key, secret) {
        case let (key?, secret?):
            return S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        case (_?, nil):
            throw S3Error.missingCredentials("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; set both")
        case (nil, _?):
            throw S3Error.missingCredentials("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not; set both")
        case (nil, nil):
            break
        }

        let profile = value("AWS_PROFILE") ?? "default"
        let path: String
        if let file = value("AWS_SHARED_CREDENTIALS_FILE") {
            path = file
        } else if let home = value("HOME") ?? homeDirectory {
            path = (home.hasSuffix("/") ? home : home + "/") + ".aws/credentials"
        } else {
            throw S3Error.missingCredentials(
                "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_SHARED_CREDENTIALS_FILE")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw S3Error.missingCredentials(
                "no credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set and \(path) cannot be "
                    + "read; set the variables or write a [\(profile)] profile there")
        }
        return try fromProfile(
            profile, in: SharedCredentialsFile(parsing: String(decoding: data, as: UTF8.self)),
            path: path)
    }

    /// The credentials of `profile` in `file` (read from `path`, named in messages).
    static func fromProfile(_ profile: String, in file: SharedCredentialsFile, path: String) throws -> S3Credentials {
        guard let settings = file.profiles[profile] else {
            let known = file.profiles.keys.sorted()
            throw S3Error.missingCredentials(
                "profile '\(profile)' is not in \(path) ("
                    + (known.isEmpty ? "it has no profiles" : "profiles there: \(known.joined(separator: ", "))")
                    + "); set AWS_PROFILE to one of them or add it")
        }
        func setting(_ name: String) -> String? {
            guard let value = settings[name], !value.isEmpty else { return nil }
            return value
        }
        guard let key = setting("aws_access_key_id") else {
            throw S3Error.missingCredentials("profile '\(profile)' in \(path) has no aws_access_key_id")
        }
        guard let secret = setting("aws_secret_access_key") else {
            throw S3Error.missingCredentials("profile '\(profile)' in \(path) has no aws_secret_access_key")
        }
        // aws_security_token is the older name some tools still write.
        return S3Credentials(
            accessKeyID: key, secretAccessKey: secret,
            sessionToken: setting("aws_session_token") ?? setting("aws_security_token"))
    }
}
