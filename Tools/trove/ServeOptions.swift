import ArgumentParser
import Foundation
import TroveServer

/// The flags of `trove serve`, read by `ServerConfiguration` against its one list of settings
/// (`ServerSetting.all`), which `ServeCommand`'s help is written from too.
struct ServeOptions: ParsableArguments {
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("Settings as --name VALUE; see the list below.", valueName: "settings"))
    var settings: [String] = []

    /// Defaults, then `--config FILE`, then the environment, then the flags.
    func resolvedConfiguration(environment: [String: String]) throws -> ServerConfiguration {
        try ServerConfiguration(environment: environment, arguments: settings)
    }
}
