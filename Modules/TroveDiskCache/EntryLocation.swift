/// Where one key's entry lives: its file name (the index's key) and its path under `entries/`.
struct EntryLocation: Sendable {
    let name: String
    let path: String

    /// Both, for `let (name, path) = ...`.
    var parts: (name: String, path: String) { (name, path) }
}
