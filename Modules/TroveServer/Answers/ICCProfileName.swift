import Foundation
import TroveCore

/// The name an ICC profile gives itself: its `desc` tag, in the v2 `desc` form (ASCII) or the v4 `mluc`
/// form (UTF-16BE, the first record). Nil for bytes that are not a profile or have no readable name.
enum ICCProfileName {
    static func read(_ profile: [UInt8]) -> String? {
        guard let range = ICCTagTable(profile)["desc"] else { return nil }
        return description(Array(profile[range]))
    }

    /// The text of a `desc` or `mluc` tag's bytes.
    private static func description(_ tag: [UInt8]) -> String? {
        switch text(tag, 0, 4) {
        case "desc":
            let count = Int(word(tag, 8))
            guard count > 0, 12 + count <= tag.count else { return nil }
            let bytes = tag[12..<(12 + count)].prefix { $0 != 0 }
            return cleaned(String(decoding: bytes, as: UTF8.self))
        case "mluc":
            guard tag.count >= 28, word(tag, 8) > 0 else { return nil }
            let length = Int(word(tag, 20)), offset = Int(word(tag, 24))
            guard length >= 2, offset >= 0, offset <= tag.count - length else { return nil }
            var units: [UInt16] = []
            for at in stride(from: offset, to: offset + length - 1, by: 2) {
                units.append(UInt16(tag[at]) << 8 | UInt16(tag[at + 1]))
            }
            return cleaned(String(decoding: units.prefix { $0 != 0 }, as: UTF16.self))
        default:
            return nil
        }
    }

    private static func cleaned(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func word(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= bytes.count else { return 0 }
        return bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func text(_ bytes: [UInt8], _ at: Int, _ count: Int) -> String {
        guard at >= 0, at + count <= bytes.count else { return "" }
        return String(decoding: bytes[at..<(at + count)], as: UTF8.self)
    }
}
