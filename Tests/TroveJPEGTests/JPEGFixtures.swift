import Foundation
import TroveTestSupport

/// JPEG test files under Tests/Fixtures, found from this source file's location.
enum JPEGFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func jpeg(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("jpeg/\(name).jpg"))
    }

    static func rocket() throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("images/rocket.jpg"))
    }

    /// Pillow's RGBA decode of a fixture (see jpeg/README.md).
    static func reference(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent("jpeg/\(name).rgba")))
    }

    /// Name, width, height and Pillow's mode for the file (RGB, L, CMYK) of every fixture.
    static let index: [(name: String, width: Int, height: Int, mode: String)] = {
        let url = root.appendingPathComponent("jpeg/index.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            guard fields.count == 4, let w = Int(fields[1]), let h = Int(fields[2]) else { return nil }
            return (String(fields[0]), w, h, String(fields[3]))
        }
    }()

    /// The largest difference between two equally long byte arrays (Int.max when their lengths differ).
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return Int.max }
        return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }
}
