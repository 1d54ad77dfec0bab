import Foundation

/// Byte counts as people write them in flags and the environment: 1000, 64k, 500M, 2G (binary units; KiB,
/// MiB and GiB too). One reading for the CLI's `--to`, and the server's sizes.
package enum ByteCountText {
    /// The count `text` names; nil for anything else (a negative number, an unknown unit, an overflow).
    package static func parse(_ text: String) -> Int? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
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
        return overflow ? nil : bytes
    }
}
