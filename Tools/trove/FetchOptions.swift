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

    func validate() throws {
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
    }
}
