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
        let registry = try TroveRegistry.make()
        let hasher: any KeyHasher
        let eviction: any EvictionPolicyFactory
        let compressor: any Compressor
        do {
            hasher = try registry.hasher(named: self.hasher)
            eviction = try registry.evictionPolicy(named: self.eviction)
            compressor = try registry.compressor(named: compress)
        } catch let error as TroveError {
            throw UsageError(description: error.description)
        }
        let defaults = PipelineConfiguration()
        var configuration = DiskCacheConfiguration()
        configuration.byteLimit = defaults.diskByteLimit
        configuration.countLimit = defaults.diskCountLimit
        configuration.maxAge = defaults.diskMaxAge
        configuration.compressionLevel = defaults.compressionLevel
        do {
            return try DiskCache(
                directory: common.cacheDirectoryURL, configuration: configuration, hasher: hasher,
                compressor: compressor,
                knownCompressors: registry.names(of: .compressor).compactMap { try? registry.compressor(named: $0) },
                evictionPolicy: eviction)
        } catch {
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
