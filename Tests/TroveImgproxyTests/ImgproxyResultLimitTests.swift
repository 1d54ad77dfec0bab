import Testing
import Trove

@testable import TroveImgproxy

/// `maxResultDimension`: a resize whose planned image would pass it throws before allocating, wherever
/// the size comes from (the URL's numbers, an enlarged strip, a fill's cover).
@Suite struct ImgproxyResultLimitTests {
    static func image(_ width: Int, _ height: Int) -> Image {
        Image(width: width, height: height, pixels: [UInt8](repeating: 200, count: width * height * 4))
    }

    func refusal(_ resize: ImgproxyResize, source: Image) -> ImgproxyURLError? {
        do {
            _ = try resize.transform(source)
            return nil
        } catch {
            return error as? ImgproxyURLError
        }
    }

    @Test func aResultWithinTheLimitIsMade() throws {
        let resize = ImgproxyResize(width: 64, height: 0, enlarge: true, maxResultDimension: 64)
        let out = try resize.transform(Self.image(8, 4))
        #expect(out.width == 64 && out.height == 32)
    }

    @Test func anEnlargedStripPastTheLimitIsRefusedWithItsSize() throws {
        // 64 wide asks for a 64x6400 image from a 2x200 strip: the height is what breaks the limit.
        let resize = ImgproxyResize(width: 64, height: 0, enlarge: true, maxResultDimension: 1000)
        let error = try #require(refusal(resize, source: Self.image(2, 200)))
        #expect(error.status == 422)
        #expect(
            error.message
                == "the result would be 64x6400 pixels, over this server's limit of 1000 pixels a side; ask for a smaller size"
        )
    }

    @Test func aFillWhoseCoverPassesTheLimitIsRefusedThoughItsCutWouldFit() throws {
        // Covering 100x100 from a 1x50 strip scales it to 100x5000, then cuts 100x100.
        let resize = ImgproxyResize(
            resizingType: .fill, width: 100, height: 100, enlarge: true, maxResultDimension: 4000)
        #expect(refusal(resize, source: Self.image(1, 50))?.status == 422)
        let wider = ImgproxyResize(
            resizingType: .fill, width: 100, height: 100, enlarge: true, maxResultDimension: 5000)
        let out = try wider.transform(Self.image(1, 50))
        #expect(out.width == 100 && out.height == 100)
    }

    @Test func theReducedCopyOfAShrinkOnLoadPlanKeepsTheLimit() throws {
        let resize = ImgproxyResize(width: 64, height: 0, enlarge: true, maxResultDimension: 1000)
        let reduced = resize.forReducedSource(PixelSize(width: 1, height: 100), of: PixelSize(width: 2, height: 200))
        #expect(throws: ImgproxyURLError.self) { try reduced.transform(Self.image(1, 100)) }
    }

    @Test func theLimitIsNotPartOfTheIdentifier() {
        // It refuses results and never changes one, so cached results stay shared across limits.
        #expect(
            ImgproxyResize(width: 64, maxResultDimension: 100).identifier
                == ImgproxyResize(width: 64, maxResultDimension: 9000).identifier)
    }
}
