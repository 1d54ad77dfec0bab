import ArgumentParser
import Foundation

/// A byte count with an optional binary suffix: 1000, 64k, 500M, 2G.
struct ByteCount: ExpressibleByArgument {
    let bytes: Int

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Int)] = [
            ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30),
            ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("b", 1)
        ]
        var number = text
        var scale = 1
        for (suffix, value) in units where text.hasSuffix(suffix) {
            number = String(text.dropLast(suffix.count))
            scale = value
            break
        }
        guard let value = Int(number), value >= 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        self.bytes = bytes
    }
}

/// An age such as 90s, 30m, 12h, 7d or 2w.
struct Age: ExpressibleByArgument {
    let seconds: Int

    init?(argument: String) {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = argument.last, let scale = units[unit], let value = Int(argument.dropLast()), value >= 0
        else { return nil }
        let (seconds, overflow) = value.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        self.seconds = seconds
    }
}
