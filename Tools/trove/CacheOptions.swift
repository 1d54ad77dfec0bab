import ArgumentParser
import Foundation
import Trove

/// The plugins that name and order cache entries: `--hasher` and `--eviction`, declared once for every
/// command that opens a cache (`get`, `prefetch`, `cache ...`), so all of them read and write the same
/// entries.
struct CacheOptions: ParsableArguments {
    @Option(
        help:
            "Key hasher for disk entry names: sha256 (the default), md5 or a plugin's (entries keep the hasher they were written with)."
    )
    var hasher: String?

    @Option(
        help:
            "Eviction policy for the memory and disk caches: lru (the default), fifo, lfu, sieve, s3fifo, wtinylfu or a plugin's."
    )
    var eviction: String?

    @Option(
        name: .customLong("drop-query"),
        help: ArgumentHelp(
            "A query parameter left out of cache keys (a CDN's signature or expiry), so URLs differing only in it "
                + "share one entry; repeat for more. A trailing * drops every name that begins with the rest.",
            valueName: "name"))
    var droppedQueryParameters: [String] = []

    func validate() throws {
        if let empty = droppedQueryParameters.first(where: { $0.isEmpty || $0 == "*" }) {
            throw ValidationError("--drop-query needs a parameter name (or a prefix and *), got '\(empty)'")
        }
        if let hasher { try PluginNameCheck.check(hasher, option: "--hasher", kind: .hasher) }
        if let eviction { try PluginNameCheck.check(eviction, option: "--eviction", kind: .evictionPolicy) }
    }

    /// Sets what was given: the hasher, both caches' eviction policy and the parameters keys leave out (on
    /// top of a `--config` file's).
    func apply(to configuration: inout PipelineConfiguration) {
        configuration.cacheKeyRule.droppedQueryParameters.formUnion(droppedQueryParameters)
        if let hasher { configuration.hasher = HasherName(hasher) }
        if let eviction {
            configuration.memoryEviction = EvictionPolicyName(eviction)
            configuration.diskEviction = EvictionPolicyName(eviction)
        }
    }

    /// Opens the cache in `common.cacheDirectoryURL` with the registry's plugins. An unknown plugin name is
    /// bad usage (exit 2); a directory that cannot be created is a failure (exit 1).
    func openCache(_ common: CommonOptions, compress: String? = nil) throws -> DiskCache {
        // The same construction `ImagePipeline` uses, from the same defaults, so both tools agree on entries.
        var configuration = try common.pipelineConfiguration()
        apply(to: &configuration)
        if let compress { configuration.compressor = CompressorName(compress) }
        do {
            guard let cache = try configuration.makeDiskCache(registry: TroveRegistry.make()) else {
                throw CacheFailure(message: "no cache directory")
            }
            return cache
        } catch let error as TroveError {
            if case .unknownPlugin = error { throw ValidationError(error.description) }
            throw CacheFailure(error)
        }
    }
}

/// `--compress`: the compressor new disk entries are written with (an entry is kept compressed only when
/// that makes it smaller); reading works whatever each entry was written with.
struct CompressionOption: ParsableArguments {
    @Option(
        help:
            "Disk entry compressor: none (the default), zlib or a plugin's (kept only when it makes the entry smaller)."
    )
    var compress: String?

    func validate() throws {
        if let compress { try PluginNameCheck.check(compress, option: "--compress", kind: .compressor) }
    }
}

/// Plugin names given on the command line, checked against the CLI's registry before a command runs.
enum PluginNameCheck {
    /// Throws a `ValidationError` naming the option and listing the names the registry has.
    static func check(_ name: String, option: String, kind: PluginKind) throws {
        let known = try TroveRegistry.make().names(of: kind)
        guard known.contains(name) else {
            throw ValidationError("unknown \(kind) '\(name)' for \(option); known: \(known.joined(separator: ", "))")
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
        } catch let usage as ValidationError {
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
