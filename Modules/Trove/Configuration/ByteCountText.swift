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

    /// The count as a person reads it, in binary units: "512 bytes", "64 KiB", "256 MiB", "1.5 GiB" (one
    /// decimal where the count is not whole in its unit).
    package static func text(_ bytes: Int) -> String {
        let units: [(String, Int)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        for (name, size) in units where bytes >= size {
            if bytes % size == 0 { return "\(bytes / size) \(name)" }
            let tenths = (bytes / size) * 10 + ((bytes % size) * 10 + size / 2) / size
            return tenths % 10 == 0 ? "\(tenths / 10) \(name)" : "\(tenths / 10).\(tenths % 10) \(name)"
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}
