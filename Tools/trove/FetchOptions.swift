import ArgumentParser
import Trove

/// How long a command's fetches may take: `--timeout` (silence) and `--deadline` (the whole request).
struct FetchOptions: ParsableArguments {
    @Option(help: "Idle timeout in seconds: a fetch fails when the origin sends nothing for this long (default 15).")
    var timeout: Double?

    @Option(help: "Seconds a whole request may take, retries included (default 60).")
    var deadline: Double?

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
    }
}
