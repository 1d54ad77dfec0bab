import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// PngSuite's deliberately broken files are refused with a reason that names what is wrong.
@Suite struct PNGSuiteBrokenFileTests {
    static let expectations: [(file: String, reason: String)] = [
        ("xc1n0g08", "unsupported color type 1"),
        ("xc9n2c08", "unsupported color type 9"),
        ("xcrn0g04", "invalid PNG signature"),
        ("xcsn0g01", "CRC mismatch in IDAT chunk"),
        ("xd0n2c08", "unsupported bit depth 0 for color type 2"),
        ("xd3n2c08", "unsupported bit depth 3 for color type 2"),
        ("xd9n2c08", "unsupported bit depth 99 for color type 2"),
        ("xdtn0g01", "missing IDAT chunk"),
        ("xhdn0g08", "CRC mismatch in IHDR chunk"),
        ("xlfn0g04", "invalid PNG signature"),
        ("xs1n0g01", "invalid PNG signature"),
        ("xs2n0g01", "invalid PNG signature"),
        ("xs4n0g01", "invalid PNG signature"),
        ("xs7n0g01", "invalid PNG signature")
    ]

    @Test func everyBrokenSuiteFileIsCovered() {
        #expect(Fixtures.pngSuiteNames.filter { $0.hasPrefix("x") } == Self.expectations.map(\.file))
    }

    @Test(arguments: expectations.map(\.file))
    func brokenFileIsRefusedWithItsReason(file: String) throws {
        let expected = try #require(Self.expectations.first { $0.file == file }).reason
        let error = try #require(throws: TroveError.self) {
            try PNGDecoder().decode(try Fixtures.pngSuite(file), limits: .default)
        }
        guard case .decodingFailed(format: .png, let reason) = error else {
            Issue.record("\(file): expected decodingFailed, got \(error)"); return
        }
        #expect(reason.contains(expected), "\(file): \(reason)")
    }
}
