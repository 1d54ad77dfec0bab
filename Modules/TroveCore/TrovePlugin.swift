/// A named, versioned bundle of registrations, installed with `PluginRegistry.install(_:)`.
public protocol TrovePlugin: Sendable {
    var name: String { get }
    var version: String { get }
    func register(into registry: inout PluginRegistry) throws
}

/// What `PluginRegistry.installedPlugins` remembers of an installed plugin.
public struct PluginInfo: Sendable, Equatable, Codable {
    public let name: String
    public let version: String

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}
