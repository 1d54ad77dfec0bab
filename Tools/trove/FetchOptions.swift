import ArgumentParser
import Trove

/// How a command fetches: how long it may take, `--timeout` (silence) and `--deadline` (the whole request),
/// and how https certificates are checked, `--ca-bundle` and `--insecure-host`.
struct FetchOptions: ParsableArguments {
    @Option(help: "Idle timeout in seconds: a fetch fails when the origin sends nothing for this long (default 15).")
    var timeout: Double?

    @Option(
        help:
            "Seconds a whole request may take, retries included (default 20); a retry that cannot finish within it is not made."
    )
    var deadline: Double?

    @Option(
        name: .customLong("ca-bundle"),
        help: ArgumentHelp(
            "A PEM file of CA certificates that https servers' certificates are checked against, in place of the "
                + "system's.", valueName: "file"))
    var caBundle: String?

    @Option(
        name: .customLong("insecure-host"),
        help: ArgumentHelp(
            "A host whose https certificate is accepted without any check (a development server's self-signed "
                + "one); repeat for more hosts. Logged at warning.", valueName: "host"))
    var insecureHosts: [String] = []

    @Option(
        name: .customLong("cookies"),
        help: ArgumentHelp(
            "Keep cookies for this run in memory, starting with this one: 'URL name=value[; attributes]' (as a "
                + "Set-Cookie from URL would set it; a bare URL adds none). Cookies responses set go back to their "
                + "host and path. Repeat for more.", valueName: "url cookie"))
    var cookies: [String] = []

    func validate() throws {
        _ = try seedCookies()
        if let timeout, !(timeout > 0) {
            throw ValidationError("--timeout must be more than 0 seconds, got \(timeout)")
        }
        if let deadline, !(deadline > 0) {
            throw ValidationError("--deadline must be more than 0 seconds, got \(deadline)")
        }
    }

    /// Sets what was given on `configuration`.
    func apply(to configuration: inout PipelineConfiguration) {
        if let timeout { configuration.fetchTimeout = .milliseconds(Int64(timeout * 1000)) }
        if let deadline { configuration.requestDeadline = .milliseconds(Int64(deadline * 1000)) }
        if let caBundle { configuration.tls.caBundle = caBundle }
        configuration.tls.insecureHosts.formUnion(insecureHosts)
        guard !cookies.isEmpty, let seeds = try? seedCookies() else { return }
        configuration.cookies = (configuration.cookies ?? [:]).merging(seeds) { $0 + $1 }
    }

    /// `--cookies` as seeds by URL; bad usage names a value that cannot be used.
    func seedCookies() throws -> [String: [String]] {
        var seeds: [String: [String]] = [:]
        for value in cookies {
            let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
            let url = parts.first ?? ""
            seeds[url, default: []] += parts.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        }
        do {
            try PipelineConfiguration.checkCookies(seeds)
        } catch let TroveError.invalidConfiguration(reason) {
            throw ValidationError("--cookies: \(reason)")
        }
        return seeds
    }
}
