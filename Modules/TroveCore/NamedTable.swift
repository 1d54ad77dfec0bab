/// Plugins of one kind by name, remembering the order they were registered in: where two plugins claim the
/// same format or scheme, the latest registration wins. The error cases every kind shares live here once.
struct NamedTable<Plugin: Sendable>: Sendable {
    let kind: PluginKind
    private(set) var items: [String: Plugin] = [:]

    init(kind: PluginKind) { self.kind = kind }

    mutating func add(_ plugin: Plugin, named name: String, replacing: Bool, sequence: Int) throws {
        guard !name.isEmpty else {
            throw TroveError.invalidConfiguration("a \(kind) needs a non-empty name")
        }
        if items[name] != nil && !replacing {
            throw TroveError.duplicatePlugin(kind: kind, name: name)
        }
        items[name] = plugin
        // Sequences only grow, so the newest registration goes first.
        newestFirst.removeAll { $0.name == name }
        newestFirst.insert((name, plugin, sequence), at: 0)
    }

    func get(_ name: String) throws -> Plugin {
        guard let plugin = items[name] else {
            throw TroveError.unknownPlugin(kind: kind, name: name, known: names)
        }
        return plugin
    }

    /// Names sorted, for listings and messages.
    var names: [String] { items.keys.sorted() }

    /// Plugins newest registration first, each with when it was (last) registered in the registry's
    /// sequence: the order lookups by format or scheme ask them in. Kept in that order as plugins are
    /// added, since every request's fetcher and decoder lookups walk it.
    private(set) var newestFirst: [(name: String, plugin: Plugin, sequence: Int)] = []

    /// Plugins registered at or after `sequence`, for checking one `install` on its own.
    func registered(since sequence: Int) -> [(name: String, plugin: Plugin, sequence: Int)] {
        Array(newestFirst.prefix { $0.sequence >= sequence })
    }
}
