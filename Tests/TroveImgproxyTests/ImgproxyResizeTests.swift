import Testing
import Trove
import TroveTransformers

@testable import TroveImgproxy

/// imgproxy's geometry on synthetic images: sizes for each resizing type, and which pixels gravity keeps.
@Suite struct ImgproxyResizeTests {
    typealias RGBA = (UInt8, UInt8, UInt8, UInt8)
    static let red: RGBA = (255, 0, 0, 255), blue: RGBA = (0, 0, 255, 255)
    static let green: RGBA = (0, 255, 0, 255), white: RGBA = (255, 255, 255, 255)

    /// Solid quadrants: top-left red, top-right blue, bottom-left green, bottom-right white.
    static func quadrants(width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = y < height / 2 ? (x < width / 2 ? red : blue) : (x < width / 2 ? green : white)
                let i = (y * width + x) * 4
                pixels[i] = c.0; pixels[i + 1] = c.1; pixels[i + 2] = c.2; pixels[i + 3] = c.3
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    static func pixel(_ image: Image, _ x: Int, _ y: Int) -> [UInt8] {
        let i = y * image.bytesPerRow + x * 4
        return Array(image.pixels[i..<i + 4])
    }

    static func color(_ c: RGBA) -> [UInt8] { [c.0, c.1, c.2, c.3] }

    func size(_ resize: ImgproxyResize, _ width: Int, _ height: Int) throws -> String {
        let out = try resize.transform(Self.quadrants(width: width, height: height))
        #expect(
            resize.outputSize(for: PixelSize(width: width, height: height))
                == PixelSize(width: out.width, height: out.height))
        return "\(out.width)x\(out.height)"
    }

    @Test func fitKeepsTheAspectRatioInsideTheBox() throws {
        #expect(try size(.init(resizingType: .fit, width: 100, height: 100), 400, 200) == "100x50")
        #expect(try size(.init(resizingType: .fit, width: 100, height: 100), 200, 400) == "50x100")
        #expect(try size(.init(width: 100), 400, 200) == "100x50")
        #expect(try size(.init(height: 50), 400, 200) == "100x50")
        // Never enlarged unless asked.
        #expect(try size(.init(resizingType: .fit, width: 100, height: 100), 50, 20) == "50x20")
        #expect(try size(.init(resizingType: .fit, width: 100, height: 100, enlarge: true), 50, 20) == "100x40")
    }

    @Test func fillCoversTheBoxAndCuts() throws {
        #expect(try size(.init(resizingType: .fill, width: 100, height: 100), 400, 200) == "100x100")
        #expect(try size(.init(resizingType: .fill, width: 300, height: 100), 400, 200) == "300x100")
        // Too small and not enlarged: cut to the box where it exceeds it, nothing more.
        #expect(try size(.init(resizingType: .fill, width: 100, height: 100), 50, 20) == "50x20")
        #expect(try size(.init(resizingType: .fill, width: 30, height: 100), 50, 20) == "30x20")
        #expect(try size(.init(resizingType: .fill, width: 100, height: 100, enlarge: true), 50, 20) == "100x100")
    }

    @Test func fillDownKeepsTheBoxAspectRatioWhenTooSmall() throws {
        #expect(try size(.init(resizingType: .fillDown, width: 100, height: 100), 400, 200) == "100x100")
        #expect(try size(.init(resizingType: .fillDown, width: 100, height: 100), 50, 20) == "20x20")
        #expect(try size(.init(resizingType: .fillDown, width: 200, height: 100), 50, 40) == "50x25")
    }

    @Test func forceIgnoresTheAspectRatio() throws {
        #expect(try size(.init(resizingType: .force, width: 100, height: 100), 400, 200) == "100x100")
        // 0 keeps the source's size on that axis.
        #expect(try size(.init(resizingType: .force, width: 100), 400, 200) == "100x200")
        #expect(try size(.init(resizingType: .force, height: 20), 400, 200) == "400x20")
    }

    @Test func autoFillsWhenOrientationsMatchElseFits() throws {
        #expect(try size(.init(resizingType: .auto, width: 100, height: 80), 400, 200) == "100x80")
        #expect(try size(.init(resizingType: .auto, width: 50, height: 100), 400, 200) == "50x25")
        #expect(try size(.init(resizingType: .auto, width: 100, height: 200), 200, 400) == "100x200")
    }

    @Test func dprMultipliesTheTargetUpToTheSourceSize() throws {
        #expect(try size(.init(resizingType: .fit, width: 100, height: 100, dpr: 2), 400, 200) == "200x100")
        #expect(try size(.init(resizingType: .fill, width: 50, height: 50, dpr: 3), 400, 200) == "150x150")
        // Not past the source without enlarge...
        #expect(try size(.init(resizingType: .fit, width: 300, height: 300, dpr: 2), 400, 200) == "400x200")
        // ...and with it, fully.
        #expect(
            try size(.init(resizingType: .fit, width: 300, height: 300, enlarge: true, dpr: 2), 400, 200)
                == "600x300")
    }

    @Test func gravityChoosesWhatFillKeeps() throws {
        let image = Self.quadrants(width: 200, height: 100)
        func fill(_ gravity: ImgproxyGravity) throws -> Image {
            try ImgproxyResize(resizingType: .fill, width: 20, height: 40, gravity: gravity).transform(image)
        }
        let west = try fill(.anchor(.west)), east = try fill(.anchor(.east)), centre = try fill(.center)
        #expect(west.width == 20 && west.height == 40)
        #expect(Self.pixel(west, 10, 5) == Self.color(Self.red))
        #expect(Self.pixel(west, 10, 35) == Self.color(Self.green))
        #expect(Self.pixel(east, 10, 5) == Self.color(Self.blue))
        #expect(Self.pixel(east, 10, 35) == Self.color(Self.white))
        #expect(Self.pixel(centre, 0, 5) == Self.color(Self.red))
        #expect(Self.pixel(centre, 19, 5) == Self.color(Self.blue))
        let focus = try fill(.focusPoint(x: 0.9, y: 0.5))
        #expect(Self.pixel(focus, 0, 5) == Self.color(Self.blue))
        // An absolute offset from the west edge, in output pixels times dpr: 40 px of 80 reach the blue half.
        let offset = try ImgproxyResize(
            resizingType: .fill, width: 20, height: 40, gravity: .anchor(.west, xOffset: 40)
        )
        .transform(image)
        #expect(Self.pixel(offset, 10, 5) == Self.color(Self.blue))
    }

    @Test func gravityCutsVerticallyToo() throws {
        let image = Self.quadrants(width: 100, height: 200)
        let north = try ImgproxyResize(resizingType: .fill, width: 40, height: 20, gravity: .anchor(.north)).transform(
            image)
        let southEast = try ImgproxyResize(resizingType: .fill, width: 40, height: 20, gravity: .anchor(.southEast))
            .transform(image)
        #expect(north.width == 40 && north.height == 20)
        #expect(Self.pixel(north, 5, 10) == Self.color(Self.red))
        #expect(Self.pixel(north, 35, 10) == Self.color(Self.blue))
        #expect(Self.pixel(southEast, 5, 10) == Self.color(Self.green))
        #expect(Self.pixel(southEast, 35, 10) == Self.color(Self.white))
    }

    @Test func cropHappensBeforeResize() throws {
        let image = Self.quadrants(width: 200, height: 100)
        let topLeft = try ImgproxyResize(crop: .init(width: 100, height: 50, gravity: .anchor(.northWest))).transform(
            image)
        #expect(topLeft.width == 100 && topLeft.height == 50)
        #expect(Set((0..<50).flatMap { y in (0..<100).map { Self.pixel(topLeft, $0, y) } }) == [Self.color(Self.red)])
        let bottomRight = try ImgproxyResize(crop: .init(width: 0.5, height: 0.5, gravity: .anchor(.southEast)))
            .transform(image)
        #expect(bottomRight.width == 100 && bottomRight.height == 50)
        #expect(Self.pixel(bottomRight, 50, 25) == Self.color(Self.white))
        // Crop the left half (gravity from the resize), then fit it into 50x50: 50x50 of red over green.
        let both = try ImgproxyResize(
            resizingType: .fit, width: 50, height: 50, gravity: .anchor(.west),
            crop: .init(width: 100, height: 0)
        ).transform(image)
        #expect(both.width == 50 && both.height == 50)
        #expect(Self.pixel(both, 25, 5) == Self.color(Self.red))
        #expect(Self.pixel(both, 25, 45) == Self.color(Self.green))
        // 0 is the whole size; a crop larger than the image is the image.
        #expect(try size(.init(crop: .init(width: 0, height: 30)), 200, 100) == "200x30")
        #expect(try size(.init(crop: .init(width: 500, height: 500)), 200, 100) == "200x100")
    }

    @Test func shrinkOnLoadGivesTheSameOutputFromAReducedDecode() throws {
        let resize = ImgproxyResize(
            resizingType: .fill, width: 60, height: 60, gravity: .anchor(.east),
            crop: .init(width: 0.75, height: 0))
        let stored = PixelSize(width: 800, height: 400)
        let plan = try #require(ShrinkOnLoad(transforms: [OrientTransformer(), resize], storedSize: stored))
        #expect(plan.minimumSize.width < 800 && plan.minimumSize.height < 400)
        #expect(plan.minimumSize.width >= 120 && plan.minimumSize.height >= 120)
        // A decoder halves the image (it may reduce to any size at least the minimum).
        let reduced = Self.quadrants(width: 400, height: 200)
        let steps = plan.transforms(for: reduced)
        #expect(steps.map(\.identifier) == ["orient", resize.identifier])
        let fromReduced = try steps.reduce(reduced) { try $1.transform($0) }
        let fromFull = try resize.transform(Self.quadrants(width: 800, height: 400))
        #expect(fromReduced.width == 60 && fromReduced.height == 60)
        #expect(fromFull.width == 60 && fromFull.height == 60)
        for (x, y) in [(5, 5), (54, 5), (5, 54), (54, 54)] {
            #expect(Self.pixel(fromReduced, x, y) == Self.pixel(fromFull, x, y))
        }
        // Enlarging or keeping the size never asks for a reduced decode.
        #expect(ImgproxyResize(width: 900).minimumSourceSize(for: stored, reducingGap: 2) == nil)
        #expect(ImgproxyResize(width: 500).minimumSourceSize(for: stored, reducingGap: 2) == nil)
    }

    /// Resizing before a turn (`beforeRotation`) keeps what resizing the turned image keeps.
    @Test(arguments: [90, 180, 270])
    func resizingBeforeATurnMatchesResizingAfterIt(degrees: Int) throws {
        let image = Self.quadrants(width: 120, height: 80)
        let angle = try #require(RotateTransformer.Angle(rawValue: degrees))
        let turned = try RotateTransformer(angle).transform(image)
        var resizes: [ImgproxyResize] = ImgproxyGravity.Anchor.allCases.flatMap { anchor in
            [
                ImgproxyResize(resizingType: .fill, width: 31, height: 17, gravity: .anchor(anchor)),
                ImgproxyResize(
                    resizingType: .fill, width: 15, height: 40, gravity: .anchor(anchor, xOffset: 5, yOffset: 0.1))
            ]
        }
        resizes += [
            ImgproxyResize(resizingType: .fill, width: 20, height: 20, gravity: .focusPoint(x: 0.8, y: 0.3)),
            ImgproxyResize(resizingType: .fit, width: 50, height: 30),
            ImgproxyResize(resizingType: .force, width: 50, height: 0),
            ImgproxyResize(crop: .init(width: 30, height: 0.5, gravity: .anchor(.northEast, xOffset: 3, yOffset: 2))),
            ImgproxyResize(
                resizingType: .fill, width: 40, height: 30, gravity: .anchor(.south),
                crop: .init(width: 0.6, height: 50, gravity: .focusPoint(x: 0.2, y: 0.7)))
        ]
        for resize in resizes {
            let after = try resize.transform(turned)
            let before = try RotateTransformer(angle).transform(resize.beforeRotation(degrees).transform(image))
            #expect(after.width == before.width && after.height == before.height, "\(resize.identifier)")
            guard after.width == before.width && after.height == before.height else { continue }
            // Compare away from colour edges: a centred cut may round a pixel the other way once turned.
            var compared = 0, differing = 0
            for y in 2..<max(after.height - 2, 2) {
                for x in 2..<max(after.width - 2, 2) {
                    let here = Self.pixel(after, x, y)
                    let uniform = (-2...2).allSatisfy { dy in
                        (-2...2).allSatisfy { dx in
                            Self.pixel(after, x + dx, y + dy) == here
                        }
                    }
                    guard uniform else { continue }
                    compared += 1
                    if Self.pixel(before, x, y) != here { differing += 1 }
                }
            }
            #expect(differing == 0, "\(resize.identifier) at \(degrees)")
            // Lanczos rings a few pixels either side of each colour edge; what is left must still be a fair part.
            #expect(compared >= 40, "\(resize.identifier) compared only \(compared) pixels")
        }
    }

    @Test func identifiersNameEveryParameter() {
        let variants: [ImgproxyResize] = [
            .init(), .init(resizingType: .fill), .init(width: 1), .init(height: 1), .init(enlarge: true),
            .init(dpr: 2), .init(gravity: .anchor(.north)), .init(gravity: .anchor(.north, xOffset: 1)),
            .init(gravity: .focusPoint(x: 0.5, y: 0.5)), .init(crop: .init(width: 1, height: 2)),
            .init(crop: .init(width: 1, height: 2, gravity: .center)), .init(filter: .bilinear)
        ]
        #expect(Set(variants.map(\.identifier)).count == variants.count)
        #expect(
            ImgproxyResize(resizingType: .fillDown, width: 300, height: 200, gravity: .focusPoint(x: 0.25, y: 1))
                .identifier
                == "imgproxy.resize(rt=fill-down,w=300,h=200,el=false,dpr=1.0,g=fp:0.25:1.0,crop=none,filter=lanczos3)")
    }

    @Test func flattenCompositesOverTheBackground() throws {
        let image = Image(width: 2, height: 1, pixels: [255, 0, 0, 128, 10, 20, 30, 255])
        let flat = try FlattenTransformer.white.transform(image)
        #expect(flat.pixels == [255, 127, 127, 255, 10, 20, 30, 255])
        let black = try FlattenTransformer(red: 0, green: 0, blue: 0).transform(image)
        #expect(black.pixels == [128, 0, 0, 255, 10, 20, 30, 255])
    }
}
