import Foundation
import Testing

/// Every Swift block in the README and the DocC articles is a region of a Swift file that `make test`
/// compiles, word for word: a block edited by hand, or an API change that breaks one, fails here or in
/// the build. A block names its region in the comment line just above it:
/// `<!-- snippet: Tests/SnippetTests/TourSnippets.swift#load-an-image -->`.
@Suite struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A fenced Swift block and the region its marker names.
    struct Block: CustomStringConvertible {
        let document: String
        let line: Int
        let text: String
        let region: (path: String, name: String)?
        var description: String { "\(document):\(line)" }
    }

    static var documents: [String] {
        let docc = "Modules/Trove/Trove.docc"
        let articles =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(docc).path)) ?? []
        return ["README.md"] + articles.filter { $0.hasSuffix(".md") }.sorted().map { "\(docc)/\($0)" }
    }

    /// The Swift blocks of a Markdown file, each with the region named just above it, if any.
    static func blocks(in document: String) throws -> [Block] {
        let lines = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            .components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            guard lines[index].trimmingCharacters(in: .whitespaces) == "```swift" else {
                index += 1
                continue
            }
            let start = index
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(lines[index])
                index += 1
            }
            let marker = lines[..<start].last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            blocks.append(
                Block(
                    document: document, line: start + 1, text: body.joined(separator: "\n"),
                    region: marker.flatMap(region(named:))))
            index += 1
        }
        return blocks
    }

    /// `<!-- snippet: PATH#NAME -->` read as (PATH, NAME).
    static func region(named marker: String) -> (path: String, name: String)? {
        let text = marker.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("<!-- snippet:"), text.hasSuffix("-->") else { return nil }
        let reference = text.dropFirst("<!-- snippet:".count).dropLast("-->".count).trimmingCharacters(in: .whitespaces)
        let parts = reference.split(separator: "#", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// The lines between `// snippet NAME` and `// end snippet NAME`, less their common indentation.
    static func regionText(path: String, name: String) throws -> String? {
        let lines = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8).components(
            separatedBy: "\n")
        let trimmed = lines.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = trimmed.firstIndex(of: "// snippet \(name)"),
            let end = trimmed[begin...].firstIndex(of: "// end snippet \(name)")
        else { return nil }
        let body = Array(lines[(begin + 1)..<end])
        let indent =
            body.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return body.map { $0.count >= indent ? String($0.dropFirst(indent)) : "" }.joined(separator: "\n")
    }

    @Test func everySwiftBlockIsACompiledRegionWordForWord() throws {
        var checked = 0
        var inReadme = 0
        for document in Self.documents {
            for block in try Self.blocks(in: document) {
                if document == "README.md" { inReadme += 1 }
                let region = try #require(
                    block.region, "\(block): a Swift block without a `<!-- snippet: PATH#NAME -->` line above it")
                let source = try #require(
                    try Self.regionText(path: region.path, name: region.name),
                    "\(block): no region `\(region.name)` in \(region.path)")
                // A block may open with imports (which cannot sit in a function): the file must make them too.
                var blockLines = Self.lines(block.text)
                let imports = blockLines.prefix { $0.hasPrefix("import ") || $0.isEmpty }
                blockLines.removeFirst(imports.count)
                let fileLines = Self.lines(
                    try String(contentsOf: Self.root.appendingPathComponent(region.path), encoding: .utf8))
                for line in imports where !line.isEmpty {
                    #expect(fileLines.contains(line), "\(block): `\(line)` is not imported by \(region.path)")
                }
                #expect(
                    blockLines == Self.lines(source),
                    "\(block) differs from \(region.path)#\(region.name); copy the region into the document")
                checked += 1
            }
        }
        // The README has five blocks (load, compose, formats, and the plugin's two) and the articles eight; a
        // parser that found none would pass vacuously.
        #expect(inReadme >= 5)
        #expect(checked >= 13)
    }

    /// Lines without trailing spaces, for a comparison that ignores only invisible differences.
    static func lines(_ text: String) -> [String] {
        text.components(separatedBy: "\n").map { line in
            String(line.reversed().drop { $0 == " " }.reversed())
        }
    }

    /// The checker itself: a block that drifts from its region is caught, and one without a marker too.
    @Test func theCheckerSeesDriftAndMissingMarkers() throws {
        let region = try #require(
            try Self.regionText(path: "Tests/SnippetTests/TourSnippets.swift", name: "load-an-image"))
        #expect(region.hasPrefix("let pipeline = try ImagePipeline()"))
        #expect(Self.lines(region) != Self.lines(region.replacingOccurrences(of: "image(for:", with: "image(from:")))
        #expect(
            Self.region(named: "<!-- snippet: Tests/SnippetTests/TourSnippets.swift#formats -->")?.name == "formats")
        #expect(Self.region(named: "<!-- a comment -->") == nil)
        #expect(try Self.regionText(path: "Tests/SnippetTests/TourSnippets.swift", name: "no-such-region") == nil)
    }
}
