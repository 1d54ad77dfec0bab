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
            "Shared cache tier for a fleet of processes: redis://[user:pass@]host:port[/db] or s3://bucket[/prefix]?endpoint=URL&region=R; repeat it to stack tiers, top first (default $TROVE_SHARED_CACHE, comma- or space-separated).",
            valueName: "url"))
    var sharedCaches: [String] = []

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

    /// The flags, else the environment variable's URLs (comma- or space-separated); empty when neither is
    /// set (or the variable is empty).
    var urls: [URL] {
        get throws {
            let fromFlags = !sharedCaches.isEmpty
            let texts =
                fromFlags
                ? sharedCaches
                : (ProcessInfo.processInfo.environment[Self.environmentVariable] ?? "")
                    .split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
            return try texts.map { text in
                guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty, url.host != nil else {
                    let source = fromFlags ? "--shared-cache" : "$\(Self.environmentVariable)"
                    throw ValidationError("\(source) must be a URL such as redis://host:6379/0, got '\(text)'")
                }
                return url
            }
        }
    }

    func validate() throws {
        _ = try urls
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
        let urls = try urls
        if !urls.isEmpty { configuration.sharedCaches = urls }
        if let leaseSeconds { configuration.sharedTierPolicy.leaseTTL = .milliseconds(Int64(leaseSeconds * 1000)) }
        if let cooldownSeconds {
            configuration.sharedTierPolicy.cooldown = .milliseconds(Int64(cooldownSeconds * 1000))
        }
    }

    /// What `trove cache stats` shows of the shared tier: the counts every process published, and whether
    /// the server answered (the breaker a pipeline would keep closes on an answer and opens on silence). A
    /// stack shows its tiers' sums and, in `tiers`, each one's own.
    struct Report: Encodable {
        /// The tier's name (`redis`, `s3`); for a stack, the names joined by `+`.
        let name: String
        let url: String
        let breaker: String
        let hits: Int
        let misses: Int
        let stores: Int
        let errors: Int
        let skipped: Int
        /// Why the tier could not be asked, when it could not.
        let unavailable: String?
        /// A stack's tiers, top first; nil for one tier.
        let tiers: [Report]?
    }

    /// Asks each tier for its fleet-wide counts; nil without a shared cache. A configuration error (a wrong
    /// password, an unknown scheme) throws; an unreachable server is reported with the breaker open.
    func report(registry: PluginRegistry) async throws -> Report? {
        // Only the tiers are made: no disk cache to open.
        var configuration = PipelineConfiguration.memoryOnly
        try apply(to: &configuration)
        let urls = configuration.sharedCaches
        var reports: [Report] = []
        for (url, name) in zip(urls, configuration.sharedTierNames) {
            var single = configuration
            single.sharedCache = url
            guard let tier = try single.makeSharedTier(registry: registry) else { continue }
            reports.append(try await Self.report(tier, name: name, url: url))
        }
        guard reports.count > 1 else { return reports.first }
        let answered = reports.filter { $0.unavailable == nil }
        return Report(
            name: reports.map(\.name).joined(separator: "+"), url: reports.map(\.url).joined(separator: " "),
            breaker: (answered.isEmpty ? SharedTierBreakerState.open : .closed).rawValue,
            hits: answered.reduce(0) { $0 + $1.hits }, misses: answered.reduce(0) { $0 + $1.misses },
            stores: answered.reduce(0) { $0 + $1.stores }, errors: answered.reduce(0) { $0 + $1.errors },
            skipped: answered.reduce(0) { $0 + $1.skipped },
            unavailable: answered.isEmpty ? reports.compactMap(\.unavailable).joined(separator: "; ") : nil,
            tiers: reports)
    }

    /// One tier's report; the tier is shut down after.
    private static func report(_ tier: any SharedCacheTier, name: String, url: URL) async throws -> Report {
        let shown = redacted(url)
        do {
            let counts = try await tier.fleetStatistics()
            await tier.shutdown()
            return Report(
                name: name, url: shown, breaker: SharedTierBreakerState.closed.rawValue, hits: counts.hits,
                misses: counts.misses, stores: counts.stores, errors: counts.errors, skipped: counts.skipped,
                unavailable: nil, tiers: nil)
        } catch let TroveError.sharedTierUnavailable(reason) {
            await tier.shutdown()
            return Report(
                name: name, url: shown, breaker: SharedTierBreakerState.open.rawValue, hits: 0, misses: 0, stores: 0,
                errors: 0, skipped: 0, unavailable: reason, tiers: nil)
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
