import ArgumentParser
import Foundation
import Trove

/// `trove cache forget URL...`: removes a URL's original, every processed variant of it, its shared-tier
/// copy, its remembered failure and a mark that refuses it as a source that crashed a server, so the next
/// request for it goes to the origin.
struct CacheForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract:
            "Forget URLs: their original and every processed variant on disk, the shared-cache copy, a "
            + "remembered failure and a crashed-source mark.")

    @OptionGroup var common: CommonOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var shared: SharedCacheOptions

    @Argument(help: "The URLs, as given to get or prefetch.")
    var urls: [String]

    func run() async throws {
        let urls = try urls.map { try GetCommand.url(from: $0) }
        var configuration = try common.pipelineConfiguration()
        cache.apply(to: &configuration)
        try shared.apply(to: &configuration)
        let pipeline = try await reportingFailures("forget") {
            try ImagePipeline(registry: TroveRegistry.make(), configuration: configuration)
        }
        for url in urls {
            let report = await pipeline.forget(url: url)
            if common.json {
                printJSONLine(report)
            } else {
                print(
                    "\(report.url): \(report.disk) on disk, \(report.shared) in the shared cache, "
                        + "\(report.failures) remembered failure\(report.failures == 1 ? "" : "s")"
                        + (report.poisoned > 0 ? ", the crashed-source mark" : ""))
            }
        }
        await pipeline.sharedTier?.shutdown()
    }
}
