import ArgumentParser
import Trove

struct PluginsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plugins",
                                                    abstract: "List the registry's plugins by kind.")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let registry = try TroveRegistry.make()
        let listing = registry.listing
        if common.json {
            printJSONLine(Dictionary(uniqueKeysWithValues: listing.map { ($0.key.plural, $0.value) }))
        } else {
            for kind in PluginKind.allCases {
                print("\(kind.plural): \(listing[kind, default: []].joined(separator: ", "))")
            }
            for plugin in registry.installedPlugins {
                print("installed plugin: \(plugin.name) \(plugin.version)")
            }
        }
    }
}
