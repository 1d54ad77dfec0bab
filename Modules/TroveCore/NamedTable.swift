/// Plugins of one kind by name; the error cases every kind shares live here once.
struct NamedTable<Plugin: Sendable>: Sendable {
    let kind: PluginKind
    private(set) var items: [String: Plugin] = [:]

    init(kind: PluginKind) { self.kind = kind }

    mutating func add(_ plugin: Plugin, named name: String, replacing: Bool) throws {
        guard !name.isEmpty else {
            throw TroveError.invalidConfiguration("a \(kind) needs a non-empty name")
        }
        if items[name] != nil && !replacing {
            throw TroveError.duplicatePlugin(kind: kind, name: name)
        }
        items[name] = plugin
    }

    func get(_ name: String) throws -> Plugin {
        guard let plugin = items[name] else {
            throw TroveError.unknownPlugin(kind: kind, name: name, known: names)
        }
        return plugin
    }

    var names: [String] { items.keys.sorted() }
}
