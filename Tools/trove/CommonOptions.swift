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

    var cacheDirectoryURL: URL {
        cacheDirectory.map { URL(fileURLWithPath: $0) } ?? PipelineConfiguration.defaultCacheDirectory
    }
}
