import ArgumentParser
import Foundation
import Trove

/// How `trove cache` subcommands open the cache: the same registry names `trove get` takes, so both
/// tools read and write the same entries.
struct CacheOptions: ParsableArguments {
    @Option(help: "Key hasher for entry file names (must match the one the entries were written with).")
    var hasher = "sha256"

    @Option(help: "Eviction policy used when trimming.")
    var eviction = "lru"

    /// Opens the cache in `common.cacheDirectoryURL` with the registry's plugins. An unknown plugin name is
    /// bad usage (exit 2); a directory that cannot be created is a failure (exit 1).
    func openCache(_ common: CommonOptions, compress: String = "none") throws -> DiskCache {
        // The same construction `ImagePipeline` uses, from the same defaults, so both tools agree on entries.
        var configuration = PipelineConfiguration(cacheDirectory: common.cacheDirectoryURL)
        configuration.hasher = hasher
        configuration.diskEviction = eviction
        configuration.compressor = compress
        do {
            guard let cache = try configuration.makeDiskCache(registry: TroveRegistry.make()) else {
                throw CacheFailure(message: "no cache directory")
            }
            return cache
        } catch let error as TroveError {
            if case .unknownPlugin = error { throw UsageError(description: error.description) }
            throw CacheFailure(error)
        }
    }
}

/// A cache operation that failed: the message goes to stderr and the tool exits 1.
struct CacheFailure: Error, CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        description = (error as? TroveError)?.description ?? String(describing: error)
    }

    init(message: String) {
        description = message
    }
}

extension AsyncParsableCommand {
    /// Runs a cache operation, turning a failure into its message on stderr and exit 1.
    func reportingFailures<T>(_ command: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let usage as UsageError {
            throw usage
        } catch let exit as ExitCode {
            throw exit
        } catch let failure as CacheFailure {
            printError("trove cache \(command): \(failure.description)")
            throw ExitCode(1)
        } catch {
            printError("trove cache \(command): \(CacheFailure(error).description)")
            throw ExitCode(1)
        }
    }
}
