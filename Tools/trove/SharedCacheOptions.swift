import ArgumentParser
import Foundation
import Trove

/// `--shared-cache`: the fleet's shared cache tier below this process's disk (`get`, `prefetch`, and any
/// command that builds a pipeline). Self-contained so every such command takes it the same way.
struct SharedCacheOptions: ParsableArguments {
    /// The environment variable read when `--shared-cache` is not given.
    static let environmentVariable = "TROVE_SHARED_CACHE"

    @Option(
        name: .customLong("shared-cache"),
        help: ArgumentHelp(
            "Shared cache tier for a fleet of processes: redis://[user:pass@]host:port[/db] or s3://bucket[/prefix]?endpoint=URL&region=R (default $TROVE_SHARED_CACHE).",
            valueName: "url"))
    var sharedCache: String?

    @Option(
        name: .customLong("shared-cache-lease"),
        help:
            "Seconds a fleet-wide lease on a URL lasts; others wait this long for its holder (default: the fetch timeout plus 5)."
    )
    var leaseSeconds: Double?

    @Option(
        name: .customLong("shared-cache-cooldown"),
        help: "Seconds an unreachable shared cache is skipped before it is tried again (default 5).")
    var cooldownSeconds: Double?

    /// The flag, else the environment variable; nil when neither is set (or the variable is empty).
    var url: URL? {
        get throws {
            let text =
                sharedCache
                ?? ProcessInfo.processInfo.environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
            guard let text else { return nil }
            guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty, url.host != nil else {
                let source = sharedCache == nil ? "$\(Self.environmentVariable)" : "--shared-cache"
                throw ValidationError("\(source) must be a URL such as redis://host:6379/0, got '\(text)'")
            }
            return url
        }
    }

    func validate() throws {
        _ = try url
        if let leaseSeconds, !(leaseSeconds > 0) {
            throw ValidationError("--shared-cache-lease must be more than 0 seconds, got \(leaseSeconds)")
        }
        if let cooldownSeconds, !(cooldownSeconds > 0) {
            throw ValidationError("--shared-cache-cooldown must be more than 0 seconds, got \(cooldownSeconds)")
        }
    }

    /// Sets the shared tier and its policy on `configuration`; the pipeline makes the tier (an unknown
    /// scheme fails there, naming the schemes the registry knows).
    func apply(to configuration: inout PipelineConfiguration) throws {
        // Only a flag or the environment replaces what a --config file said; neither leaves it as it was.
        if let url = try url { configuration.sharedCache = url }
        if let leaseSeconds { configuration.sharedTierPolicy.leaseTTL = .milliseconds(Int64(leaseSeconds * 1000)) }
        if let cooldownSeconds {
            configuration.sharedTierPolicy.cooldown = .milliseconds(Int64(cooldownSeconds * 1000))
        }
    }

    /// What `trove cache stats` shows of the shared tier: the counts every process published, and whether
    /// the server answered (the breaker a pipeline would keep closes on an answer and opens on silence).
    struct Report: Encodable {
        let url: String
        let breaker: String
        let hits: Int
        let misses: Int
        let stores: Int
        let errors: Int
        let skipped: Int
        /// Why the tier could not be asked, when it could not.
        let unavailable: String?
    }

    /// Asks the tier for its fleet-wide counts; nil without a shared cache. A configuration error (a wrong
    /// password, an unknown scheme) throws; an unreachable server is reported with the breaker open.
    func report(registry: PluginRegistry) async throws -> Report? {
        guard let url = try url else { return nil }
        // Only the tier is made: no disk cache to open.
        var configuration = PipelineConfiguration.memoryOnly
        try apply(to: &configuration)
        guard let tier = try configuration.makeSharedTier(registry: registry) else { return nil }
        let shown = Self.redacted(url)
        do {
            let counts = try await tier.fleetStatistics()
            await tier.shutdown()
            return Report(
                url: shown, breaker: SharedTierBreakerState.closed.rawValue, hits: counts.hits,
                misses: counts.misses, stores: counts.stores, errors: counts.errors,
                skipped: counts.skipped, unavailable: nil)
        } catch let TroveError.sharedTierUnavailable(reason) {
            await tier.shutdown()
            return Report(
                url: shown, breaker: SharedTierBreakerState.open.rawValue, hits: 0, misses: 0, stores: 0,
                errors: 0, skipped: 0, unavailable: reason)
        } catch {
            await tier.shutdown()
            throw error
        }
    }

    /// The URL with its password replaced, for output.
    static func redacted(_ url: URL) -> String {
        guard url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.password = "***"
        return components.string ?? url.absoluteString
    }
}
