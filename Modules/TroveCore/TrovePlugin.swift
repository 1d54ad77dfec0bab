/// A named, versioned bundle of registrations, installed with `PluginRegistry.install(_:)`.
public protocol TrovePlugin: Sendable {
    /// The plugin's name, shown by `trove plugins` and in error messages about its registrations.
    var name: String { get }
    /// The plugin's version, e.g. "1.0.0"; informational only.
    var version: String { get }
    /// Registers the plugin's parts. `PluginRegistry.install(_:)` calls it on a copy, so a throw leaves the registry
    /// unchanged.
    func register(into registry: inout PluginRegistry) throws
}

/// What `PluginRegistry.installedPlugins` remembers of an installed plugin.
public struct PluginInfo: Sendable, Equatable, Codable {
    /// The plugin's `name`.
    public let name: String
    /// The plugin's `version`.
    public let version: String

    /// A record of the plugin `name` at `version`.
    package init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}
