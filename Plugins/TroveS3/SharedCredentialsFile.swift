/// The AWS shared credentials file (`~/.aws/credentials`): INI sections named after profiles, each with
/// `aws_access_key_id`, `aws_secret_access_key` and optionally `aws_session_token`. Lines starting with `#` or
/// `;` are comments; keys are case-insensitive; `[profile name]` (the config file's spelling) is accepted too.
struct SharedCredentialsFile {
    /// Each profile's settings, keys lower-cased.
    private(set) var profiles: [String: [String: String]] = [:]

    init(parsing text: String) {
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                var name = String(line.dropFirst().dropLast()).trimmingWhitespace()
                if name.hasPrefix("profile ") { name = String(name.dropFirst(8)).trimmingWhitespace() }
                current = name
                profiles[name, default: [:]] = profiles[name, default: [:]]
                continue
            }
            guard let profile = current, let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmingWhitespace().lowercased()
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            profiles[profile, default: [:]][key] = value
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice = slice.dropLast() }
        return String(slice)
    }
}
