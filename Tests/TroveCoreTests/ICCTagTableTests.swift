import Foundation
import Testing
import TroveCore

/// `ICCTagTable` on real profiles (colord's and Ghostscript's, installed by scripts/setup.sh) and on damaged
/// ones: a table cut short or claiming more entries than the bytes hold is no table, an entry whose data runs
/// past the end is skipped, and no bytes trap.
@Suite struct ICCTagTableTests {
    static let colordSRGB = "/usr/share/color/icc/colord/sRGB.icc"
    static let ghostscriptRGB = "/usr/share/color/icc/ghostscript/default_rgb.icc"

    static func profile(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The tables as an independent reader (Python's struct module) lists them; the three curves share one
    /// tag's data in both profiles.
    static let expected: [String: [String: Range<Int>]] = [
        colordSRGB: [
            "desc": 288..<324, "cprt": 324..<4168, "wtpt": 4168..<4188, "chad": 4188..<4232, "rXYZ": 4232..<4252,
            "bXYZ": 4252..<4272, "gXYZ": 4272..<4292, "rTRC": 4292..<4324, "gTRC": 4292..<4324,
            "bTRC": 4292..<4324, "chrm": 4324..<4360, "meta": 4360..<4686, "dmdd": 4688..<20420
        ],
        ghostscriptRGB: [
            "desc": 252..<376, "cprt": 376..<416, "wtpt": 416..<436, "bkpt": 436..<456, "rXYZ": 456..<476,
            "gXYZ": 476..<496, "bXYZ": 496..<516, "rTRC": 516..<2576, "gTRC": 516..<2576, "bTRC": 516..<2576
        ]
    ]

    /// Writes `value` big-endian at `offset`.
    static func put(_ value: UInt32, in bytes: inout [UInt8], at offset: Int) {
        bytes.replaceSubrange(
            offset..<offset + 4, with: (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) })
    }

    /// Where the entry for `signature` starts in the table.
    static func entry(of signature: String, in bytes: [UInt8]) throws -> Int {
        try #require(
            stride(from: 132, to: bytes.count - 12, by: 12).first { at in
                String(decoding: bytes[at..<at + 4], as: UTF8.self) == signature
            })
    }

    @Test(arguments: [colordSRGB, ghostscriptRGB])
    func aRealProfilesTableIsReadWhole(_ path: String) throws {
        #expect(ICCTagTable(try Self.profile(path)).ranges == Self.expected[path])
    }

    /// Cut at every length: nothing until the whole table is there, then exactly the tags whose data the
    /// bytes still hold, at the same places as in the whole profile.
    @Test(arguments: [colordSRGB, ghostscriptRGB])
    func everyTruncationKeepsOnlyTheTagsItHolds(_ path: String) throws {
        let bytes = try Self.profile(path)
        let whole = try #require(Self.expected[path])
        let tableEnd = 132 + 12 * Int(bytes[128..<132].reduce(0) { $0 << 8 | UInt32($1) })
        for length in 0...bytes.count {
            let table = ICCTagTable(Array(bytes.prefix(length)))
            let held = length < tableEnd ? [:] : whole.filter { $0.value.upperBound <= length }
            #expect(table.ranges == held, "\(path) cut to \(length)")
        }
    }

    /// A count the bytes cannot hold is a damaged table, not one to read as far as it goes (which would take
    /// the tags' data for entries): one entry more than the profile has room for, far more, the most 32 bits say.
    @Test func aCountLargerThanTheBytesHoldGivesNoTags() throws {
        let whole = try Self.profile(Self.colordSRGB)
        let room = UInt32((whole.count - 132) / 12)
        for count in [room + 1, 1_000_000, UInt32.max] {
            var bytes = whole
            Self.put(count, in: &bytes, at: 128)
            #expect(ICCTagTable(bytes).ranges.isEmpty, "count \(count)")
        }
    }

    @Test func aZeroCountGivesNoTags() throws {
        var bytes = try Self.profile(Self.ghostscriptRGB)
        Self.put(0, in: &bytes, at: 128)
        #expect(ICCTagTable(bytes).ranges.isEmpty)
    }

    /// Data one byte past the end, and an offset and size whose sum overflows 32 bits: that tag is skipped,
    /// the others are read.
    @Test(arguments: [(UInt32(20_400), UInt32(21)), (UInt32(0xFFFF_FFF0), UInt32(0x20)), (UInt32.max, UInt32.max)])
    func aTagWhoseDataPassesTheEndIsSkipped(offset: UInt32, size: UInt32) throws {
        var bytes = try Self.profile(Self.colordSRGB)
        let entry = try Self.entry(of: "gXYZ", in: bytes)
        Self.put(offset, in: &bytes, at: entry + 4)
        Self.put(size, in: &bytes, at: entry + 8)
        var expected = try #require(Self.expected[Self.colordSRGB])
        expected["gXYZ"] = nil
        #expect(ICCTagTable(bytes).ranges == expected)
    }

    /// A signature listed twice keeps its first entry, as LittleCMS's tag search does.
    @Test func aRepeatedSignatureKeepsItsFirstEntry() throws {
        var bytes = try Self.profile(Self.ghostscriptRGB)
        let bkpt = try Self.entry(of: "bkpt", in: bytes)
        bytes.replaceSubrange(bkpt..<bkpt + 4, with: Array("wtpt".utf8))
        let table = ICCTagTable(bytes)
        #expect(table["wtpt"] == 416..<436)
        #expect(table["bkpt"] == nil)
        #expect(table.count == 9)
    }
}
