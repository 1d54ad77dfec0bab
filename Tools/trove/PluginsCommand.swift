import ArgumentParser
import Trove
import TroveCore
import TroveHEIF

struct PluginsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the registry's plugins by kind.")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let registry = try TroveRegistry.make()
        let listing = registry.listing
        let routing = registry.routing
        if common.json {
            printJSONLine(
                PluginsReport(
                    kinds: Dictionary(uniqueKeysWithValues: listing.map { ($0.key.plural, $0.value) }),
                    routing: routing, installed: registry.installedPlugins))
        } else {
            for kind in PluginKind.allCases {
                print("\(kind.plural): \(listing[kind, default: []].joined(separator: ", "))")
            }
            for (format, route) in routing.formats.sorted(by: { $0.key < $1.key }) {
                print("format \(format): decoder \(route.decoder ?? "-"), encoder \(route.encoder ?? "-")")
            }
            for (scheme, route) in routing.schemes.sorted(by: { $0.key < $1.key }) {
                print("scheme \(scheme): fetcher \(route.fetcher ?? "-"), shared tier \(route.sharedTier ?? "-")")
            }
            for plugin in registry.installedPlugins {
                print("installed plugin: \(plugin.name) \(plugin.version)")
            }
            if !TroveHEIFPlugin.canEncode {
                print("note: heic decodes only: this machine's libheif has no HEVC encoder (x265)")
            }
        }
    }
}

/// `trove plugins --json`: every kind's names at the top level (as before), plus which plugin serves each
/// format and scheme, and the installed plugins.
struct PluginsReport: Encodable {
    let kinds: [String: [String]]
    let routing: PluginRouting
    let installed: [PluginInfo]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (kind, names) in kinds { try container.encode(names, forKey: Key(stringValue: kind)) }
        try container.encode(routing.formats, forKey: Key(stringValue: "formats"))
        try container.encode(routing.schemes, forKey: Key(stringValue: "schemes"))
        try container.encode(installed, forKey: Key(stringValue: "installed"))
    }
}
