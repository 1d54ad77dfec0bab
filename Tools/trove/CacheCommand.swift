import ArgumentParser
import Foundation
import Trove

/// `trove cache ...`: inspect and maintain a disk cache directory, and keep raw data entries in it.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain a disk cache directory; put, get and remove raw data entries.",
        subcommands: [
            CacheStatsCommand.self, CacheListCommand.self, CacheVerifyCommand.self, CacheTrimCommand.self,
            CacheClearCommand.self, CacheForgetCommand.self, CachePutCommand.self, CacheGetCommand.self,
            CacheRemoveCommand.self
        ])
}
