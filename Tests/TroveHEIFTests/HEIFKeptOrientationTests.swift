import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveHEIF

/// An image whose orientation the pipeline kept is written with its stored pixels and 'irot'/'imir', and
/// displays turned: in Trove's decoder (Debian's libheif) and in pillow-heif (a newer libheif, which checks
/// the decoded size against 'ispe'). Odd sides go through libheif's grid wrapper, alpha through an
/// auxiliary image that must turn with the picture.
@Suite struct HEIFKeptOrientationTests {
    /// Stored sizes: an odd width, an odd height, both even.
    static let sizes = [
        PixelSize(width: 171, height: 256), PixelSize(width: 170, height: 255), PixelSize(width: 170, height: 256)
    ]

    /// One file to write: stored size, orientation, with or without an alpha plane.
    struct Case: CustomStringConvertible, Sendable {
        var size: PixelSize
        var orientation: ExifOrientation
        var alpha: Bool
        var description: String { "\(size.width)x\(size.height) o\(orientation.rawValue)\(alpha ? " alpha" : "")" }
        var name: String { "\(size.width)x\(size.height)-o\(orientation.rawValue)\(alpha ? "-alpha" : "")" }
    }

    static let cases: [Case] = sizes.flatMap { size in
        (2...8).compactMap(ExifOrientation.init(rawValue:)).flatMap { orientation in
            [false, true].map { Case(size: size, orientation: orientation, alpha: $0) }
        }
    }

    /// Quadrant colours of the stored picture (top left, top right, bottom left, bottom right), RGBA; the
    /// alpha values are used only when the case has alpha.
    static let quadrants: [[UInt8]] = [[230, 20, 20, 255], [20, 230, 20, 200], [20, 20, 230, 120], [235, 235, 235, 60]]

    /// Where each stored quadrant shows (same order as `quadrants`), by EXIF's definition of the tags:
    /// e.g. 6, "row 0 is the right side, column 0 the top", puts the stored top left at the top right.
    static let shownAt: [ExifOrientation: [Int]] = [
        .up: [0, 1, 2, 3], .upMirrored: [1, 0, 3, 2], .down: [3, 2, 1, 0], .downMirrored: [2, 3, 0, 1],
        .leftMirrored: [0, 2, 1, 3], .right: [1, 3, 0, 2], .rightMirrored: [3, 1, 2, 0], .left: [2, 0, 3, 1]
    ]

    static func source(_ c: Case) -> Image {
        let (width, height) = (c.size.width, c.size.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                var colour = quadrants[(y >= height / 2 ? 2 : 0) + (x >= width / 2 ? 1 : 0)]
                if !c.alpha { colour[3] = 255 }
                pixels.replaceSubrange((y * width + x) * 4..<(y * width + x) * 4 + 4, with: colour)
            }
        }
        return Image(width: width, height: height, pixels: pixels, orientation: c.orientation)
    }

    /// The displayed size and the colour expected at the centre of each displayed quadrant.
    static func expected(_ c: Case) -> (size: PixelSize, centres: [[UInt8]]) {
        let size = c.orientation.swapsAxes ? PixelSize(width: c.size.height, height: c.size.width) : c.size
        var centres = [[UInt8]](repeating: [], count: 4)
        for (stored, shown) in shownAt[c.orientation]!.enumerated() {
            var colour = quadrants[stored]
            if !c.alpha { colour[3] = 255 }
            centres[shown] = colour
        }
        return (size, centres)
    }

    /// The quadrant centres of a displayed picture, as (x, y).
    static func centres(width: Int, height: Int) -> [(Int, Int)] {
        [
            (width / 4, height / 4), (width * 3 / 4, height / 4), (width / 4, height * 3 / 4),
            (width * 3 / 4, height * 3 / 4)
        ]
    }

    static func close(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 24 }
    }

    static func encoded(_ c: Case) throws -> Data {
        try HEIFEncoder().encode(source(c), options: EncodingOptions(quality: 0.9))
    }

    @Test(arguments: cases)
    func troveDecodesTheDisplayedPicture(_ c: Case) throws {
        let image = try HEIFDecoder().decode(try Self.encoded(c), limits: .default)
        let want = Self.expected(c)
        try #require(
            image.width == want.size.width && image.height == want.size.height, "\(image.width)x\(image.height)")
        for (index, (x, y)) in Self.centres(width: image.width, height: image.height).enumerated() {
            let at = (y * image.width + x) * 4
            let got = Array(image.pixels[at..<at + 4])
            #expect(Self.close(got, want.centres[index]), "quadrant \(index): \(got), want \(want.centres[index])")
        }
    }

    /// Canon's HIF files associate 'irot' before 'ispe'. libheif 1.15 then reports the stored size while it
    /// decodes the turned picture, and the decode was refused ("decodes to 4672x7008, but the container says
    /// 7008x4672"): the displayed size is reported, and decoded, turned.
    @Test(arguments: [ExifOrientation.right, .left, .down])
    func aRotationAssociatedBeforeTheStoredSizeStillTurnsIt(_ orientation: ExifOrientation) throws {
        let c = Case(size: PixelSize(width: 170, height: 256), orientation: orientation, alpha: false)
        var file = [UInt8](try Self.encoded(c))
        try Self.associateRotationFirst(&file)
        let want = Self.expected(c)
        let info = try #require(try HEIFDecoder().info(Data(file)))
        #expect(PixelSize(width: info.width, height: info.height) == want.size)
        let image = try HEIFDecoder().decode(Data(file), limits: .default)
        try #require(PixelSize(width: image.width, height: image.height) == want.size)
        for (index, (x, y)) in Self.centres(width: image.width, height: image.height).enumerated() {
            let at = (y * image.width + x) * 4
            #expect(Self.close(Array(image.pixels[at..<at + 4]), want.centres[index]), "quadrant \(index)")
        }
    }

    /// Swaps the primary item's 'irot' and 'ispe' associations in 'ipma' (entries of one size), so the
    /// rotation comes first.
    static func associateRotationFirst(_ file: inout [UInt8]) throws {
        let unreadable = HEIFDecoder.failure("the test file's boxes are not as the encoder writes them")
        let (positions, entrySize): ([Int], Int) = try file.withUnsafeBytes { bytes in
            guard let meta = ISOBMFFBoxes.firstChild("meta", in: bytes, within: 0..<bytes.count) else {
                throw unreadable
            }
            let boxes = ISOBMFFBoxes.children(in: bytes, within: (meta.lowerBound + 4)..<meta.upperBound)
            guard let pitm = boxes.first(where: { $0.type == "pitm" })?.body,
                let iprp = boxes.first(where: { $0.type == "iprp" })?.body,
                let ipco = ISOBMFFBoxes.firstChild("ipco", in: bytes, within: iprp),
                let ipma = ISOBMFFBoxes.firstChild("ipma", in: bytes, within: iprp)
            else { throw unreadable }
            let types = ISOBMFFBoxes.children(in: bytes, within: ipco).map(\.type)
            let primary = Int(try HEIFItemBoxes.primaryItem(bytes, pitm: pitm))
            var reader = BoxReader(bytes, ipma)
            guard let version = reader.int(1), let flags = reader.int(3), let count = reader.int(4) else {
                throw unreadable
            }
            let wide = flags & 1 == 1
            for _ in 0..<count {
                guard let id = reader.int(version < 1 ? 2 : 4), let associations = reader.int(1) else {
                    throw unreadable
                }
                var found: [String: Int] = [:]
                for _ in 0..<associations {
                    let at = reader.rest.lowerBound
                    guard let value = reader.int(wide ? 2 : 1) else { throw unreadable }
                    let index = value & (wide ? 0x7FFF : 0x7F)
                    if index >= 1, index <= types.count { found[types[index - 1]] = at }
                }
                if id == primary, let ispe = found["ispe"], let irot = found["irot"] {
                    return ([ispe, irot], wide ? 2 : 1)
                }
            }
            throw unreadable
        }
        #expect(positions[0] < positions[1], "the encoder associates 'ispe' first")
        for offset in 0..<entrySize { file.swapAt(positions[0] + offset, positions[1] + offset) }
    }

    @Test func aFileLaidOutOtherwiseIsRefusedNotHalfEdited() throws {
        let file = try Self.encoded(Case(size: PixelSize(width: 170, height: 256), orientation: .up, alpha: false))
        // Cut inside 'mdat': the top-level boxes no longer fill the file.
        #expect(throws: TroveError.self) { try HEIFOrientationProperties.adding(.right, to: Array(file.dropLast(10))) }
        #expect(throws: TroveError.self) { try HEIFOrientationProperties.adding(.right, to: Array("not HEIF".utf8)) }
        // Upright needs no box: the file is returned as it was.
        #expect(try HEIFOrientationProperties.adding(.up, to: Array(file)) == Array(file))
    }

    // libheif 1.15 read back the files its own orientation option wrote (turned 'ispe' before 'irot'); pillow-heif's
    // libheif refused them, so this is the half that catches that.
    @Test func pillowHeifDecodesTheDisplayedPicture() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        for c in Self.cases { try Self.encoded(c).write(to: work.appendingPathComponent("\(c.name).heic")) }
        // One line per file: its size and the RGBA at each quadrant centre, or the error libheif gave.
        let script = """
            import sys, pillow_heif
            pillow_heif.register_heif_opener()
            from PIL import Image
            for path in sys.argv[1:]:
                try:
                    im = Image.open(path); im.load(); im = im.convert("RGBA"); w, h = im.size
                    points = [(w // 4, h // 4), (w * 3 // 4, h // 4), (w // 4, h * 3 // 4), (w * 3 // 4, h * 3 // 4)]
                    print(w, h, *[v for p in points for v in im.getpixel(p)])
                except Exception as error:
                    print("error", str(error).replace("\\n", " "))
            """
        let files = Self.cases.map { work.appendingPathComponent("\($0.name).heic").path }
        let root = Fixtures.root.deletingLastPathComponent().deletingLastPathComponent()
        let result = try await runSubprocess(
            root.appendingPathComponent("scripts/pillow/python.sh"), ["-c", script] + files)
        try #require(result.status == 0, "pillow-heif failed: \(result.stderr)")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        try #require(lines.count == Self.cases.count)
        for (c, line) in zip(Self.cases, lines) {
            let want = Self.expected(c)
            let numbers = line.split(separator: " ").compactMap { Int($0) }
            guard numbers.count == 18 else {
                Issue.record("\(c): \(line)")
                continue
            }
            #expect(numbers[0] == want.size.width && numbers[1] == want.size.height, "\(c): \(line)")
            for index in 0..<4 {
                let got = numbers[2 + 4 * index..<6 + 4 * index].map { UInt8($0) }
                #expect(
                    Self.close(got, want.centres[index]), "\(c) quadrant \(index): \(got), want \(want.centres[index])")
            }
        }
    }
}
