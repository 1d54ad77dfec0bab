import ArgumentParser
import Foundation
import Trove

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: "Cache directory (default $TROVE_CACHE_DIR, else $XDG_CACHE_HOME/trove, else ~/.cache/trove).")
    var cacheDirectory: String?

    @Flag(help: "Print one JSON object per result on stdout, nothing else.")
    var json = false

    @Option(
        help:
            "A JSON file of pipeline settings (PipelineConfiguration's property names; durations in seconds); flags override it."
    )
    var config: String?

    var cacheDirectoryURL: URL {
        cacheDirectory.map { URL(fileURLWithPath: $0) } ?? PipelineConfiguration.defaultCacheDirectory
    }

    /// The `--config` file's settings (defaults without one), in the cache directory `--cache-dir` names,
    /// else `$TROVE_CACHE_DIR`, else the file's, else the default one (as `trove serve` layers flags over
    /// the environment over the file). A file that cannot be used is bad usage.
    func pipelineConfiguration() throws -> PipelineConfiguration {
        guard let config else { return PipelineConfiguration(cacheDirectory: cacheDirectoryURL) }
        var configuration: PipelineConfiguration
        do {
            configuration = try PipelineConfiguration(contentsOf: URL(fileURLWithPath: config))
        } catch let TroveError.invalidConfiguration(reason) {
            throw ValidationError("--config \(reason)")
        }
        let environment = ProcessInfo.processInfo.environment["TROVE_CACHE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        if let directory = cacheDirectory ?? environment {
            configuration.cacheDirectory = URL(fileURLWithPath: directory)
        } else if configuration.cacheDirectory == nil {
            configuration.cacheDirectory = PipelineConfiguration.defaultCacheDirectory
        }
        return configuration
    }
}
