import Foundation
import Testing
import Trove

@testable import TroveImgproxy

/// The sizing, composition, filter, quality, header, watermark and security options: their URL forms as
/// imgproxy documents them, and what they do to an image's size and pixels.
@Suite struct ImgproxyOptionFormsTests {
    static let source = "https://example.com/images/cat.jpg"

    func options(_ optionsPath: String, allowSecurityOptions: Bool = false) throws -> ImgproxyOptions {
        try ImgproxyURL.parse(
            path: "/_/\(optionsPath)/plain/\(Self.source)", signature: .disabled,
            allowSecurityOptions: allowSecurityOptions
        ).options
    }

    func error(_ optionsPath: String, allowSecurityOptions: Bool = false) -> ImgproxyURLError? {
        do {
            _ = try options(optionsPath, allowSecurityOptions: allowSecurityOptions)
            return nil
        } catch {
            return error as? ImgproxyURLError
        }
    }

    /// The image the options' transforms make of a `width x height` image.
    func result(_ optionsPath: String, width: Int, height: Int, format: ImageFormat? = .png) throws -> Image {
        var image = ImgproxyResizeTests.quadrants(width: width, height: height)
        for step in try options(optionsPath).transforms(encodingAs: format) { image = try step.transform(image) }
        return image
    }

    // MARK: Sizes

    /// After `rot:`, sizes, minimums, zooms and the extend gravities are the turned image's, as imgproxy turns
    /// the image before it extends it and plans its scale on the turned size.
    @Test func aTurnedImageIsSizedAndExtendedAsTurned() throws {
        func alpha(_ image: Image, _ x: Int, _ y: Int) -> UInt8 { image.pixels[(y * image.width + x) * 4 + 3] }
        let north = try result("rot:180/rs:fit:100:100/ex:1:no", width: 60, height: 40)
        #expect(north.width == 100 && north.height == 100)
        #expect(alpha(north, 50, 5) == 255 && alpha(north, 50, 95) == 0)
        let east = try result("rot:90/rs:fit:100:100/ex:1:ea", width: 60, height: 40)
        #expect(alpha(east, 95, 50) == 255 && alpha(east, 5, 50) == 0)
        let west = try result("rot:270/rs:fit:100:60/exar:1:we", width: 60, height: 40)
        #expect(alpha(west, 2, west.height / 2) == 255 && alpha(west, west.width - 2, west.height / 2) == 0)
        let minimum = try result("rot:90/mw:90", width: 60, height: 40)
        #expect(minimum.width == 90 && minimum.height == 135)
        let zoomed = try result("rot:90/z:0.5:1", width: 400, height: 200)
        #expect(zoomed.width == 100 && zoomed.height == 400)
    }

    @Test func extendForms() throws {
        for name in ["extend", "ex"] {
            #expect(try options("\(name):1").extend == .center)
            #expect(try options("\(name):0").extend == nil)
            #expect(try options("\(name):t:no:10:20").extend == .anchor(.north, xOffset: 10, yOffset: 20))
            #expect(try options("\(name):1:fp:0.2:0.8").extend == .focusPoint(x: 0.2, y: 0.8))
        }
        for name in ["extend_aspect_ratio", "extend_ar", "exar"] {
            #expect(try options("\(name):1:so").extendAspectRatio == .anchor(.south))
        }
        #expect(try options("rs:fill:300:200:0:1:ce").extend == .center)
        let size = try options("s:300:200:1:1:sowe")
        #expect(size.width == 300 && size.height == 200 && size.enlarge && size.extend == .anchor(.southWest))
        #expect(error("ex:1:sm")?.message.contains("extend places the image by") == true)
    }

    @Test func extendPutsASmallerImageOnACanvasOfTheRequestedSize() throws {
        let out = try result("rs:fit:200:200/ex:1", width: 100, height: 50)
        #expect(out.width == 200 && out.height == 200)
        #expect(ImgproxyResizeTests.pixel(out, 0, 0) == [0, 0, 0, 0])
        #expect(ImgproxyResizeTests.pixel(out, 50, 75) == ImgproxyResizeTests.color(ImgproxyResizeTests.red))
        #expect(ImgproxyResizeTests.pixel(out, 149, 124) == ImgproxyResizeTests.color(ImgproxyResizeTests.white))
        #expect(ImgproxyResizeTests.pixel(out, 150, 124) == [0, 0, 0, 0])
        // North-west: the image in the top-left corner; for JPEG the canvas is flattened onto white.
        let corner = try result("rs:fit:200:200/ex:1:nowe", width: 100, height: 50, format: .jpeg)
        #expect(ImgproxyResizeTests.pixel(corner, 0, 0) == ImgproxyResizeTests.color(ImgproxyResizeTests.red))
        #expect(ImgproxyResizeTests.pixel(corner, 100, 0) == [255, 255, 255, 255])
        // dpr scales the canvas too.
        let retina = try result("rs:fit:200:200/ex:1/dpr:2", width: 100, height: 50)
        #expect(retina.width == 400 && retina.height == 400)
    }

    @Test func extendAspectRatioGrowsTheShortSide() throws {
        let out = try result("rs:fit:50:50/exar:1", width: 100, height: 50)
        #expect(out.width == 50 && out.height == 50)
        #expect(ImgproxyResizeTests.pixel(out, 0, 0) == [0, 0, 0, 0])
        #expect(ImgproxyResizeTests.pixel(out, 0, 13) == ImgproxyResizeTests.color(ImgproxyResizeTests.red))
        // Smaller than the box without enlarging: the canvas keeps the ratio, not the box's size.
        let small = try result("rs:fit:400:200/exar:1", width: 50, height: 50)
        #expect(small.width == 100 && small.height == 50)
    }

    @Test func minimumSizesAndZoom() throws {
        #expect(try options("mw:100/mh:50/min-width:120/min-height:60").minWidth == 120)
        #expect(try options("z:2").zoomX == 2 && options("z:2").zoomY == 2)
        #expect(try options("zoom:1.5:0.5").zoomY == 0.5)
        #expect(
            error("z:0")?.message
                == "invalid argument '0' for processing option 'z': give a factor greater than 0 and at most 8.0")
        let zoomed = try result("w:100/z:2", width: 400, height: 200)
        #expect(zoomed.width == 200 && zoomed.height == 100)
        let alone = try result("z:0.5", width: 400, height: 200)
        #expect(alone.width == 200 && alone.height == 100)
        // mh makes the width-led result taller (160x80), then the width cut keeps 100 columns, as imgproxy
        // warns; mw likewise, the height cut keeping 50 rows.
        let tall = try result("w:100/mh:80", width: 400, height: 200)
        #expect(tall.width == 100 && tall.height == 80)
        #expect(ImgproxyResizeTests.pixel(tall, 0, 0) == ImgproxyResizeTests.color(ImgproxyResizeTests.red))
        let wide = try result("h:50/mw:200", width: 400, height: 200)
        #expect(wide.width == 200 && wide.height == 50)
        // imgproxy applies them after its no-enlarge clamp, so they enlarge a smaller image: mw 90 makes 60x40
        // 90x60, and mh 70 makes the height-led 15x10 105x70, cut to 10 rows.
        let enlarged = try result("mw:90", width: 60, height: 40)
        #expect(enlarged.width == 90 && enlarged.height == 60)
        let cut = try result("h:10/mh:70", width: 60, height: 40)
        #expect(cut.width == 105 && cut.height == 10)
    }

    // MARK: Composition and filters

    @Test func paddingFollowsCSSOrderAndDPR() throws {
        for name in ["padding", "pd"] {
            #expect(try options("\(name):10").padding == ImgproxyPadding(top: 10, right: 10, bottom: 10, left: 10))
            #expect(try options("\(name):10:20").padding == ImgproxyPadding(top: 10, right: 20, bottom: 10, left: 20))
            #expect(
                try options("\(name):10:20:30").padding == ImgproxyPadding(top: 10, right: 20, bottom: 30, left: 20))
            #expect(
                try options("\(name):1:2:3:4").padding == ImgproxyPadding(top: 1, right: 2, bottom: 3, left: 4))
        }
        #expect(error("pd::")?.message == "processing option 'pd' needs at least one padding size")
        // imgproxy's example: resized to 100x200 with padding:10 is 120x220.
        let padded = try result("rs:force:100:200/pd:10", width: 400, height: 300)
        #expect(padded.width == 120 && padded.height == 220)
        #expect(ImgproxyResizeTests.pixel(padded, 5, 5) == [0, 0, 0, 0])
        let retina = try result("rs:force:100:200/pd:10/dpr:2", width: 400, height: 500)
        #expect(retina.width == 240 && retina.height == 440)
        let coloured = try result("rs:force:100:200/pd:10/bg:00ff00", width: 400, height: 300)
        #expect(ImgproxyResizeTests.pixel(coloured, 5, 5) == [0, 255, 0, 255])
    }

    @Test func flipTrimSharpenPixelateForms() throws {
        for name in ["flip", "fl"] {
            let both = try options("\(name):1:1")
            #expect(both.flipHorizontal && both.flipVertical)
            #expect(try !options("\(name):0:1").flipHorizontal)
        }
        let flipped = try result("fl:1:0", width: 10, height: 10)
        #expect(ImgproxyResizeTests.pixel(flipped, 0, 0) == ImgproxyResizeTests.color(ImgproxyResizeTests.blue))
        for name in ["trim", "t"] {
            #expect(
                try options("\(name):10:ff00ff:1:0").trim
                    == TrimTransformer(
                        threshold: 10, color: FillColor(red: 255, green: 0, blue: 255), equalHorizontal: true))
        }
        #expect(try options("t:5").trim == TrimTransformer(threshold: 5))
        #expect(try options("sh:0.5").sharpenSigma == 0.5 && options("sharpen:1").sharpenSigma == 1)
        #expect(try options("pix:8").pixelateSize == 8 && options("pixelate:4").pixelateSize == 4)
        #expect(error("pix:-1")?.status == 400)
    }

    // MARK: Smart gravity

    @Test func smartGravityKeepsTheDetailedHalf() throws {
        // Left half flat grey, right half a fine checkerboard.
        var pixels = [UInt8]()
        for y in 0..<96 {
            for x in 0..<192 {
                let value: UInt8 = x < 96 ? 128 : ((x / 2 + y / 2) % 2 == 0 ? 0 : 255)
                pixels += [value, value, value, 255]
            }
        }
        let image = Image(width: 192, height: 96, pixels: pixels)
        func isChecker(_ out: Image) -> Bool {
            (0..<out.width).allSatisfy { ImgproxyResizeTests.pixel(out, $0, 10)[0] != 128 }
        }
        let filled = try ImgproxyResize(resizingType: .fill, width: 96, height: 96, gravity: .smart).transform(image)
        #expect(filled.width == 96 && filled.height == 96 && isChecker(filled))
        let cropped = try ImgproxyResize(crop: .init(width: 96, height: 96, gravity: .smart)).transform(image)
        #expect(cropped.width == 96 && isChecker(cropped))
        let centred = try ImgproxyResize(resizingType: .fill, width: 96, height: 96).transform(image)
        #expect(!isChecker(centred))
        #expect(ImgproxyResize(gravity: .smart).identifier.contains("g=sm"))
    }

    // MARK: Quality, headers, watermark, metadata, security

    @Test func qualityAndDeliveryForms() throws {
        let quality = try options("fq:avif:40:jpg:85/format_quality:webp:70")
        #expect(quality.formatQuality == [.avif: 40, .jpeg: 85, .webp: 70])
        #expect(error("fq:avif")?.message.hasPrefix("processing option 'fq' takes format:quality pairs") == true)
        #expect(try options("mb:10240").maxBytes == 10240 && options("max_bytes:5").maxBytes == 5)
        #expect(try options("skp:jpg:png").skipProcessing == [.jpeg, .png])
        #expect(try options("raw:1").raw)
        #expect(try options("fn:holiday").filename == "holiday")
        // "summer photo" in URL-safe base64.
        #expect(try options("filename:c3VtbWVyIHBob3Rv:1").filename == "summer photo")
        #expect(error("fn:a%2Fb")?.status == 400)
        #expect(try options("att:1").returnAttachment && options("return_attachment:true").returnAttachment)
        #expect(try options("kcr:1/scp:1/ph:0/eth:1/sm:0").keepCopyright == true)
        let url = try ImgproxyURL.parse(path: "/_/q:0/fq:avif:40/plain/\(Self.source)", signature: .disabled)
        #expect(url.quality(for: .avif, formatQualities: [.avif: 63]) == 40)
        #expect(url.quality(for: .webp, formatQualities: [.webp: 79]) == 79)
        #expect(url.quality(for: .jpeg, formatQualities: [:]) == nil)
    }

    @Test func watermarkForms() throws {
        for name in ["watermark", "wm"] {
            #expect(
                try options("\(name):0.5:soea:10:5:0.2").watermark
                    == ImgproxyWatermark(opacity: 0.5, position: .southEast, xOffset: 10, yOffset: 5, scale: 0.2))
        }
        #expect(try options("wm:1:re").watermark?.position == .tiled)
        #expect(try options("wm:0").watermark == nil)
        #expect(error("wm:0.5:up")?.message.contains("give ce, no, so, ea, we, noea, nowe, soea, sowe or re") == true)
        // The watermark only applies with the server's image.
        let mark = Image(width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 16))
        let steps = try options("wm:1:nowe").transforms(encodingAs: .png, watermarkImage: mark)
        #expect(steps.last is WatermarkTransformer)
        #expect(try !options("wm:1:nowe").transforms(encodingAs: .png).contains { $0 is WatermarkTransformer })
    }

    @Test func securityOptionsNeedThePermission() throws {
        for option in ["max_src_resolution:10", "msr:10", "msfs:1000", "maf:5", "mafr:2", "mrd:100"] {
            #expect(
                error(option)?.message.hasSuffix(
                    "is a security option, which this server accepts only when started with --allow-security-options")
                    == true, "\(option)")
            #expect(error(option, allowSecurityOptions: true) == nil, "\(option)")
        }
        let limits = try options("msr:10/maf:5/mrd:100", allowSecurityOptions: true).limits
        #expect(limits.maxSourceResolution == 10 && limits.maxAnimationFrames == 5 && limits.maxResultDimension == 100)
        // mrd scales the result down rather than refusing it.
        var image = ImgproxyResizeTests.quadrants(width: 400, height: 200)
        for step in try options("mrd:100", allowSecurityOptions: true).transforms(encodingAs: .png) {
            image = try step.transform(image)
        }
        #expect(image.width == 100 && image.height == 50)
        // msr refuses a larger source with 422.
        var refused: ImgproxyURLError?
        do {
            for step in try options("msr:0.01", allowSecurityOptions: true).transforms(encodingAs: .png) {
                _ = try step.transform(ImgproxyResizeTests.quadrants(width: 400, height: 200))
            }
        } catch {
            refused = error as? ImgproxyURLError
        }
        #expect(refused?.status == 422)
    }

    @Test func mafKeepsTheFirstFramesOfALongerAnimation() throws {
        // Four 1x1 frames of 10, 20, 30 and 40 ms, each its own grey.
        let frames = (1...4).map {
            AnimationFrame(pixels: [UInt8](repeating: UInt8($0 * 50), count: 4), delay: .milliseconds($0 * 10))
        }
        let animation = Image(width: 1, height: 1, pixels: frames[0].pixels, frames: frames, loopCount: 2)
        func kept(_ most: Int) throws -> Image {
            try options("maf:\(most)", allowSecurityOptions: true).transforms(encodingAs: .png)
                .reduce(animation) { try $1.transform($0) }
        }
        // imgproxy processes the first maf frames, as the server's --max-animation-frames does.
        let two = try kept(2)
        #expect(two.frames == Array(frames.prefix(2)) && two.pixels == frames[0].pixels && two.loopCount == 2)
        // One frame is a still of the first.
        let one = try kept(1)
        #expect(one.frames.isEmpty && one.pixels == frames[0].pixels)
        #expect(try kept(4) == animation)
    }

    @Test func everyOptionValueChangesTheTransformIdentifiers() throws {
        func key(_ path: String) throws -> String {
            let mark = Image(width: 2, height: 2, pixels: [UInt8](repeating: 200, count: 16))
            return try options(path, allowSecurityOptions: true)
                .transforms(encodingAs: .png, watermarkImage: mark).map(\.identifier).joined(separator: "|")
        }
        let pairs = [
            ("w:100/ex:1", "w:100/ex:1:no"), ("w:100/exar:1", "w:100/exar:1:so"), ("w:100/mw:120", "w:100/mw:130"),
            ("w:100/mh:120", "w:100/mh:130"), ("z:2", "z:3"), ("pd:10", "pd:10:20"), ("fl:1:0", "fl:0:1"),
            ("t:10", "t:11"), ("t:10:fff", "t:10:000"), ("sh:1", "sh:2"), ("pix:4", "pix:5"),
            ("g:sm/w:10/h:10", "g:ce/w:10/h:10"), ("wm:0.5", "wm:0.6"), ("wm:1:re:1", "wm:1:re:2"),
            ("mrd:100", "mrd:101"), ("msr:10", "msr:11")
        ]
        for (a, b) in pairs { #expect(try key(a) != key(b), "\(a) vs \(b)") }
    }
}
