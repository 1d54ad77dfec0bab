import Foundation
import TroveTestSupport

/// The codec tests' files under Tests/Fixtures: PngSuite, its RGBA references, the GIFs and theirs.
extension Fixtures {
    static func pngSuite(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("pngsuite/\(name).png"))
    }

    /// The independent RGBA reference of a valid PngSuite image (see pngsuite-rgba/README.md).
    static func reference(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent("pngsuite-rgba/\(name).rgba")))
    }

    /// Name, width and height of every valid PngSuite image with a reference.
    static let referenceIndex: [(name: String, width: Int, height: Int)] = {
        let url = root.appendingPathComponent("pngsuite-rgba/index.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            guard fields.count == 3, let w = Int(fields[1]), let h = Int(fields[2]) else { return nil }
            return (String(fields[0]), w, h)
        }
    }()

    /// Every PngSuite file name (without .png).
    static let pngSuiteNames: [String] = {
        let folder = root.appendingPathComponent("pngsuite").path
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.filter { $0.hasSuffix(".png") }.map { String($0.dropLast(4)) }.sorted()
    }()

    static func gif(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("gif/\(name).gif"))
    }

    /// Every composed frame of a GIF fixture as RGBA8, one after another, decoded by Pillow
    /// (see gif/README.md).
    static func gifReference(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent("gif/\(name).rgba")))
    }

    /// Name, width, height and frame count of every GIF fixture.
    static let gifIndex: [(name: String, width: Int, height: Int, frames: Int)] = {
        let url = root.appendingPathComponent("gif/index.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            guard fields.count == 4, let w = Int(fields[1]), let h = Int(fields[2]), let n = Int(fields[3])
            else { return nil }
            return (String(fields[0]), w, h, n)
        }
    }()
}
