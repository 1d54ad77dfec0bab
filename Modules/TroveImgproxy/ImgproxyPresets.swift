import Foundation
import Trove

/// Named sets of processing options from configuration, as imgproxy's presets: `name=option/option`.
/// A preset named `default` applies to every URL before its own options. In presets-only mode the URL's
/// options segment is a `:`-separated list of preset names instead of options.
package struct ImgproxyPresets: Sendable {
    private let table: [String: [RawOption]]
    /// Whether URLs name presets only (imgproxy's `IMGPROXY_ONLY_PRESETS`).
    package let onlyPresets: Bool

    /// No presets; URLs carry options.
    package static let none = ImgproxyPresets(table: [:], onlyPresets: false)

    private init(table: [String: [RawOption]], onlyPresets: Bool) {
        self.table = table
        self.onlyPresets = onlyPresets
    }

    /// Presets from definitions such as `"thumb=rs:fill:200:200/q:70"`. Every preset is checked now: an
    /// unknown option, a bad argument, a preset naming an unknown preset or itself, or a name given twice
    /// throws, naming the preset.
    package init(definitions: [String], onlyPresets: Bool = false) throws(ImgproxyConfigurationError) {
        var table = [String: [RawOption]]()
        for definition in definitions {
            guard let equals = definition.firstIndex(of: "=") else {
                throw ImgproxyConfigurationError(
                    "preset definition '\(definition)' has no '=': write name=option/option, "
                        + "e.g. thumb=rs:fill:200:200")
            }
            let name = String(definition[..<equals])
            let body = definition[definition.index(after: equals)...]
            guard !name.isEmpty, !name.contains(":"), !name.contains("/") else {
                throw ImgproxyConfigurationError(
                    "preset definition '\(definition)' needs a name without ':' or '/' before '='")
            }
            guard table[name] == nil else {
                throw ImgproxyConfigurationError("preset '\(name)' is defined twice; keep one definition")
            }
            table[name] = body.split(separator: "/").map { RawOption(segment: String($0)) }
        }
        self.init(table: table, onlyPresets: onlyPresets)
        for name in table.keys.sorted() {
            var scratch = ImgproxyOptions()
            var expanding = [String]()
            do {
                try scratch.applyPreset(name, presets: self, expanding: &expanding, availableFormats: nil)
            } catch {
                throw ImgproxyConfigurationError("preset '\(name)': \(error.message)")
            }
        }
    }

    /// Presets from one comma-separated list, as imgproxy's `IMGPROXY_PRESETS`
    /// (`"default=q:80,thumb=rs:fill:200:200"`); blank entries are skipped.
    package init(list: String, onlyPresets: Bool = false) throws(ImgproxyConfigurationError) {
        let definitions = list.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        try self.init(definitions: definitions, onlyPresets: onlyPresets)
    }

    /// The configured preset names, sorted.
    package var names: [String] { table.keys.sorted() }

    func options(named name: String) -> [RawOption]? { table[name] }
}
