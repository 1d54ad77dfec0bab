import ArgumentParser
import Foundation
import Trove

/// A byte count with an optional binary suffix: 1000, 64k, 500M, 2G.
struct ByteCount: ExpressibleByArgument {
    let bytes: Int

    init?(argument: String) {
        guard let bytes = ByteCountText.parse(argument) else { return nil }
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
