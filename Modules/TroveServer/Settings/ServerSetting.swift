import Foundation
import Trove

/// One setting of `trove serve`: its flag, its environment variables, its config-file key, its help, and how
/// a value given as text is checked and written into a `ServerConfiguration`. `ServerSetting.all` is the one
/// list the flags, the environment, the config file and the help text are all read through, so a setting
/// and its default are stated once.
package struct ServerSetting: Sendable {
    /// How a flag takes its value.
    package enum Form: Sendable {
        /// `--flag VALUE` (or `--flag=VALUE`); the last one given wins.
        case value
        /// `--flag VALUE`, repeatable; the environment gives the items comma-separated.
        case list
        /// `--flag` alone sets the switch; in the environment, `true`/`false`.
        case on
        /// `--flag` alone clears the switch (`--no-result-cache`); in the environment, `true` clears it.
        case off
    }

    /// An environment variable and how its text becomes the setting's (imgproxy's units may differ).
    package struct Variable: Sendable {
        /// The variable's name.
        package let name: String
        /// Turns the variable's text into the setting's; nil leaves the setting alone (imgproxy's 0 for
        /// "no limit" on a limit Trove always keeps).
        package let convert: @Sendable (String) throws -> String?

        /// A variable whose text is the setting's as it is.
        package init(_ name: String, convert: @escaping @Sendable (String) throws -> String? = { $0 }) {
            self.name = name
            self.convert = convert
        }

        /// Whether it is one of imgproxy's (which yield to Trove's own when both are set).
        package var isImgproxys: Bool { name.hasPrefix("IMGPROXY_") }
    }

    /// `--flag`, without its dashes; nil for a setting only the environment gives (`IMGPROXY_BIND`).
    package let flag: String?
    /// The config file's top-level key; nil for the pipeline's settings, which the file gives inside its
    /// `pipeline` object by `PipelineConfiguration`'s own keys.
    package let key: String?
    /// The environment variables that give it, Trove's first.
    package let environment: [Variable]
    /// How the flag takes its value.
    package let form: Form
    /// What it does, for `--help`.
    package let help: String
    /// Writes values given as text (one, or a list's items) into a configuration; `name` is how the
    /// value was given (`--port`, `TROVE_PORT`, `'port' in the config file`), for the error.
    package let write:
        @Sendable (_ configuration: inout ServerConfiguration, _ values: [String], _ name: String) throws
            -> Void
    /// The setting's value in a configuration, as `--help` shows the default.
    package let read: @Sendable (ServerConfiguration) -> String

    /// A setting; see the properties.
    package init(
        flag: String?, key: String?, environment: [Variable], form: Form = .value, help: String,
        write: @escaping @Sendable (inout ServerConfiguration, [String], String) throws -> Void,
        read: @escaping @Sendable (ServerConfiguration) -> String
    ) {
        self.flag = flag
        self.key = key
        self.environment = environment
        self.form = form
        self.help = help
        self.write = write
        self.read = read
    }
}

// MARK: - Writers for the common kinds of value

extension ServerSetting {
    /// A whole number within `range`.
    static func integer(
        _ path: WritableKeyPath<ServerConfiguration, Int> & Sendable, in range: ClosedRange<Int> = 1...Int.max
    ) -> @Sendable (inout ServerConfiguration, [String], String) throws -> Void {
        { configuration, values, name in
            configuration[keyPath: path] = try wholeNumber(values.last ?? "", name, in: range)
        }
    }

    /// A byte count (`1048576`, `64k`, `500M`, `2G`) of at least one byte.
    static func bytes(
        _ path: WritableKeyPath<ServerConfiguration, Int> & Sendable
    ) -> @Sendable (inout ServerConfiguration, [String], String) throws -> Void {
        { configuration, values, name in
            let text = values.last ?? ""
            guard let count = ByteCountText.parse(text), count > 0 else {
                throw ServerConfigurationError(
                    "\(given(name, text)) is not a byte count; give one like 1048576, 64k, 500M or 2G")
            }
            configuration[keyPath: path] = count
        }
    }

    /// A switch: true, false, 1, 0, yes, no, on, off.
    static func flag(
        _ path: WritableKeyPath<ServerConfiguration, Bool> & Sendable
    ) -> @Sendable (inout ServerConfiguration, [String], String) throws -> Void {
        { configuration, values, name in configuration[keyPath: path] = try truth(values.last ?? "", name) }
    }

    /// A list of texts, replacing what an earlier layer gave.
    static func texts(
        _ path: WritableKeyPath<ServerConfiguration, [String]> & Sendable
    ) -> @Sendable (inout ServerConfiguration, [String], String) throws -> Void {
        { configuration, values, _ in configuration[keyPath: path] = values.filter { !$0.isEmpty } }
    }

    /// A number of seconds, more than zero, as a duration.
    static func seconds(
        _ path: WritableKeyPath<ServerConfiguration, Duration> & Sendable
    ) -> @Sendable (inout ServerConfiguration, [String], String) throws -> Void {
        { configuration, values, name in
            let text = values.last ?? ""
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                throw ServerConfigurationError("\(given(name, text)) is not a number of seconds more than 0")
            }
            configuration[keyPath: path] = .milliseconds(Int64(seconds * 1000))
        }
    }

    /// `text` as a whole number within `range`, or an error naming where it came from.
    static func wholeNumber(_ text: String, _ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ServerConfigurationError("\(given(name, text)) is not a whole number")
        }
        guard range.contains(number) else {
            let allowed =
                range.upperBound == Int.max
                ? "\(range.lowerBound) or more" : "in \(range.lowerBound)...\(range.upperBound)"
            throw ServerConfigurationError("\(name) must be \(allowed), not \(number)")
        }
        return number
    }

    /// `text` as a switch, or an error naming where it came from.
    static func truth(_ text: String, _ name: String) throws -> Bool {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ServerConfigurationError("\(given(name, text)) is not a switch; use true or false")
        }
    }

    /// A value as it was given: `TROVE_PORT=eighty`, `--port eighty`, `'port' in the config file: eighty`.
    static func given(_ name: String, _ text: String) -> String {
        if name.hasPrefix("--") { return "\(name) \(text)" }
        if name.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) { return "\(name)=\(text)" }
        return "\(name): \(text)"
    }
}
