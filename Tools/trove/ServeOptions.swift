import ArgumentParser
import Foundation
import TroveServer

/// The flags of `trove serve`, read by `ServerConfiguration` against its one list of settings
/// (`ServerSetting.all`), which `ServeCommand`'s help is written from too.
struct ServeOptions: ParsableArguments {
    @Argument(
        parsing: .allUnrecognized,
        // The settings table is the argument's discussion, not the command's: a command's configuration is
        // built for every command line parsed, this only for `serve` (listing the defaults costs about 1 ms).
        help: ArgumentHelp(
            "Settings as --name VALUE:", discussion: ServerSetting.helpText, valueName: "settings"))
    var settings: [String] = []

    /// Defaults, then `--config FILE`, then the environment, then the flags.
    func resolvedConfiguration(environment: [String: String]) throws -> ServerConfiguration {
        try ServerConfiguration(environment: environment, arguments: settings)
    }
}
