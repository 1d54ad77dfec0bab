import Foundation
import Testing

@testable import Trove

/// Where a configuration caches unless told otherwise, and how an app says "memory only".
@Suite struct DefaultCacheDirectoryTests {
    #if canImport(Darwin)
        static let platformSuffix = "Library/Caches/trove"
    #else
        static let platformSuffix = ".cache/trove"
    #endif

    @Test func withoutTroveOrXDGVariablesItIsThePlatformDirectoryUnderHome() {
        let directory = PipelineConfiguration.defaultCacheDirectory(environment: ["HOME": "/home/ann"])
        #expect(directory.path == "/home/ann/" + Self.platformSuffix)
    }

    @Test func xdgCacheHomeWinsOverHomeAndTroveCacheDirOverBoth() {
        let xdg = PipelineConfiguration.defaultCacheDirectory(
            environment: ["HOME": "/home/ann", "XDG_CACHE_HOME": "/var/cache/ann"])
        #expect(xdg.path == "/var/cache/ann/trove")
        let trove = PipelineConfiguration.defaultCacheDirectory(
            environment: ["HOME": "/home/ann", "XDG_CACHE_HOME": "/var/cache/ann", "TROVE_CACHE_DIR": "/srv/trove"])
        #expect(trove.path == "/srv/trove")
    }

    @Test func emptyVariablesAreIgnored() {
        let directory = PipelineConfiguration.defaultCacheDirectory(
            environment: ["HOME": "/home/ann", "XDG_CACHE_HOME": "", "TROVE_CACHE_DIR": ""])
        #expect(directory.path == "/home/ann/" + Self.platformSuffix)
    }

    @Test func theDefaultConfigurationUsesTheProcessEnvironmentsDirectory() {
        let expected = PipelineConfiguration.defaultCacheDirectory(environment: ProcessInfo.processInfo.environment)
        #expect(PipelineConfiguration().cacheDirectory == expected)
        #expect(PipelineConfiguration.defaultCacheDirectory == expected)
    }

    @Test func memoryOnlyAndAnExplicitNilHaveNoDirectory() throws {
        #expect(PipelineConfiguration.memoryOnly.cacheDirectory == nil)
        #expect(PipelineConfiguration(cacheDirectory: nil).cacheDirectory == nil)
        // Nothing to open: the pipelines have no disk cache.
        #expect(try DataPipeline(configuration: .memoryOnly).diskCache == nil)
        #expect(try ImagePipeline(configuration: .memoryOnly).diskCache == nil)
    }

    @Test func aJSONFileWithoutTheKeyMeansTheDefaultAndNullMeansNone() throws {
        let decoder = JSONDecoder()
        let unset = try decoder.decode(PipelineConfiguration.self, from: Data("{}".utf8))
        #expect(unset.cacheDirectory == PipelineConfiguration.defaultCacheDirectory)
        let none = try decoder.decode(PipelineConfiguration.self, from: Data(#"{"cacheDirectory": null}"#.utf8))
        #expect(none.cacheDirectory == nil)
        let given = try decoder.decode(PipelineConfiguration.self, from: Data(#"{"cacheDirectory": "/srv/c"}"#.utf8))
        #expect(given.cacheDirectory?.path == "/srv/c")
        // Memory only survives a round trip: it is written as null, not left out.
        let written = try JSONEncoder().encode(PipelineConfiguration.memoryOnly)
        #expect(try decoder.decode(PipelineConfiguration.self, from: written).cacheDirectory == nil)
    }
}
