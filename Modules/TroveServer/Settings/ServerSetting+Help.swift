import Foundation

extension ServerSetting {
    /// `trove serve`'s settings for `--help`: each flag with what it does, its default and its variables.
    package static var helpText: String {
        let defaults = ServerConfiguration()
        var lines = [
            "--config FILE  A JSON file of settings: the keys below, and \"pipeline\" (trove's JSON configuration)."
        ]
        for setting in all {
            let name: String
            switch setting.form {
            case .value, .list: name = "--\(setting.flag ?? "") VALUE"
            case .on, .off: name = "--\(setting.flag ?? "")"
            }
            var notes = ["default \(setting.read(defaults))"]
            if let key = setting.key { notes.append("file: \(key)") }
            if !setting.environment.isEmpty { notes.append(setting.environment.map(\.name).joined(separator: ", ")) }
            let label = setting.flag == nil ? setting.environment.map(\.name).joined(separator: ", ") : name
            lines.append("\(label)  \(setting.help) (\(notes.joined(separator: "; ")))")
        }
        return lines.joined(separator: "\n")
    }
}
