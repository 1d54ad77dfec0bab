import Foundation
import Testing
import Trove
import TroveTransformers

@testable import TroveImgproxy

/// Parsing imgproxy URLs: sources, every option by long and short name, presets, and the errors.
@Suite struct ImgproxyURLTests {
    static let source = "https://example.com/images/cat.jpg"

    /// An unsigned URL's options.
    func options(_ optionsPath: String, presets: ImgproxyPresets = .none) throws -> ImgproxyOptions {
        try ImgproxyURL.parse(
            path: "/_/\(optionsPath)/plain/\(Self.source)", signature: .disabled,
            presets: presets
        ).options
    }

    func error(
        _ path: String, signature: ImgproxySignature = .disabled, presets: ImgproxyPresets = .none,
        availableFormats: Set<ImageFormat>? = nil
    ) -> ImgproxyURLError? {
        do {
            _ = try ImgproxyURL.parse(
                path: path, signature: signature, presets: presets,
                availableFormats: availableFormats)
            return nil
        } catch {
            return error
        }
    }

    func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    // MARK: Sources

    @Test func plainSourceIsPercentDecodedWithExtension() throws {
        let url = try ImgproxyURL.parse(
            path: "/_/rs:fit:300:200/plain/https://example.com/a%20b.jpg%3Fv%3D2%26x%3D%40y@webp",
            signature: .disabled)
        #expect(url.source.absoluteString == "https://example.com/a%20b.jpg?v=2&x=@y")
        #expect(url.source.query == "v=2&x=@y")
        #expect(url.format == .webp)
        #expect(url.options.width == 300 && url.options.height == 200)
    }

    @Test func plainSourceWithoutExtensionKeepsFormatOpen() throws {
        let url = try ImgproxyURL.parse(path: "/_/plain/http://example.com/x.png", signature: .disabled)
        #expect(url.source.absoluteString == "http://example.com/x.png")
        #expect(url.format == nil)
        #expect(url.quality == nil)
    }

    @Test func plainSourceWithCollapsedSlashesIsRepaired() throws {
        let url = try ImgproxyURL.parse(path: "/_/w:10/plain/https:/example.com/x.png@png", signature: .disabled)
        #expect(url.source.absoluteString == "https://example.com/x.png")
    }

    @Test func plainS3SourcesKeepTheirBucketAndKey() throws {
        let url = try ImgproxyURL.parse(
            path: "/insecure/rs:fit:50:50/plain/s3://photos/a%2520b/key.png@png", signature: .disabled)
        #expect(url.source.absoluteString == "s3://photos/a%20b/key.png")
        #expect(url.source.host == "photos" && url.source.path == "/a b/key.png")
        #expect(url.format == .png)
        let collapsed = try ImgproxyURL.parse(path: "/_/w:10/plain/s3:/photos/key.png", signature: .disabled)
        #expect(collapsed.source.absoluteString == "s3://photos/key.png")
    }

    @Test func base64SourceMaySplitAcrossSegmentsAndCarryAQuery() throws {
        let text = "https://example.com/images/cat.jpg?size=large&v=3"
        let encoded = base64(text)
        let split = [encoded.prefix(10), encoded.dropFirst(10).prefix(16), encoded.dropFirst(26)]
            .map(String.init).joined(separator: "/")
        let url = try ImgproxyURL.parse(path: "/_/q:70/\(split).png", signature: .disabled)
        #expect(url.source.absoluteString == text)
        #expect(url.format == .png)
        #expect(url.quality == 70)
        let withPadding = Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let padded = try ImgproxyURL.parse(path: "/_/\(withPadding)", signature: .disabled)
        #expect(padded.source.absoluteString == text)
        #expect(padded.format == nil)
    }

    @Test func badSourcesAre400() {
        #expect(error("/_/rs:fit:10:10/!!notbase64!!.jpg")?.status == 400)
        #expect(error("/_/rs:fit:10:10/!!notbase64!!.jpg")?.message.contains("not URL-safe base64") == true)
        #expect(error("/_/w:10/plain/not-a-url")?.message.contains("not an absolute URL") == true)
        #expect(error("/_/w:10/plain/")?.status == 400)
        #expect(error("/_/w:10")?.message.contains("no source") == true)
        #expect(error("/_")?.message.contains("no source") == true)
        #expect(error("/_/w:10/plain/https://e.com/a%ZZ")?.message.contains("percent-encoding") == true)
        #expect(error("/_/enc/abcdef")?.message.contains("encrypted sources") == true)
    }

    // MARK: Options

    @Test func resizeAndSizeMetaOptions() throws {
        for name in ["resize", "rs"] {
            let o = try options("\(name):fill:300:400:1")
            #expect(o.resizingType == .fill && o.width == 300 && o.height == 400 && o.enlarge)
        }
        for name in ["size", "s"] {
            let o = try options("\(name):120:0:t")
            #expect(o.resizingType == .fit && o.width == 120 && o.height == 0 && o.enlarge)
        }
        // Empty arguments keep what is there; the extension flag may be given as false.
        let o = try options("w:50/rs:force::80:0:0")
        #expect(o.resizingType == .force && o.width == 50 && o.height == 80 && !o.enlarge)
        #expect(try options("rs:fill-down").resizingType == .fillDown)
    }

    @Test func singleValueOptionsByLongAndShortName() throws {
        for (long, short) in [
            ("resizing_type", "rt"), ("width", "w"), ("height", "h"), ("enlarge", "el"),
            ("quality", "q"), ("format", "f"), ("blur", "bl"), ("rotate", "rot"),
            ("auto_rotate", "ar")
        ] {
            let value: String =
                switch long {
                case "resizing_type": "auto"
                case "width", "height": "640"
                case "enlarge": "true"
                case "quality": "42"
                case "format": "jpg"
                case "blur": "2.5"
                case "rotate": "-90"
                default: "0"
                }
            let a = try options("\(long):\(value)"), b = try options("\(short):\(value)")
            #expect(a == b, "\(long) and \(short) differ")
            #expect(a != ImgproxyOptions(), "\(long):\(value) changed nothing")
        }
        let o = try options("rt:auto/w:640/h:480/el:1/q:42/f:jpg/bl:2.5/rot:-90/ar:0/dpr:2")
        #expect(o.resizingType == .auto && o.width == 640 && o.height == 480 && o.enlarge)
        #expect(o.quality == 42 && o.format == .jpeg && o.blurSigma == 2.5 && o.rotation == 270)
        #expect(!o.autoRotate && o.dpr == 2)
        #expect(try options("ext:webp").format == .webp)
        #expect(try options("q:0").quality == nil)
        #expect(try options("rot:450").rotation == 90)
    }

    @Test func gravityForms() throws {
        for name in ["gravity", "g"] {
            #expect(try options("\(name):noea").gravity == .anchor(.northEast))
            #expect(try options("\(name):so:10:0.25").gravity == .anchor(.south, xOffset: 10, yOffset: 0.25))
            #expect(try options("\(name):fp:0.25:0.75").gravity == .focusPoint(x: 0.25, y: 0.75))
        }
        for anchor in ImgproxyGravity.Anchor.allCases {
            #expect(try options("g:\(anchor.rawValue)").gravity == .anchor(anchor))
        }
        #expect(
            error("/_/g:up/plain/\(Self.source)")?.message
                == "invalid argument 'up' for processing option 'g': give no, so, ea, we, noea, nowe, soea, sowe, ce, sm or fp:x:y"
        )
        #expect(error("/_/g:fp:2:0/plain/\(Self.source)")?.message.contains("fp:x:y with x and y from 0 to 1") == true)
        #expect(try options("g:sm").gravity == .smart)
        #expect(
            error("/_/g:obj:face/plain/\(Self.source)")?.message
                == "processing option 'g': gravity 'obj' is part of imgproxy Pro and is not supported by this server")
        #expect(
            error("/_/g:sm:10:10/plain/\(Self.source)")?.message
                == "processing option 'g': smart gravity takes no offsets")
    }

    @Test func cropForms() throws {
        for name in ["crop", "c"] {
            #expect(try options("\(name):100:50").crop == .init(width: 100, height: 50))
            // The height left out is the whole height, as imgproxy takes it.
            #expect(try options("\(name):300").crop == .init(width: 300, height: 0))
            #expect(
                try options("\(name):0.5:0:sowe").crop == .init(width: 0.5, height: 0, gravity: .anchor(.southWest)))
            #expect(
                try options("\(name):10:10:fp:0.1:0.9").crop
                    == .init(width: 10, height: 10, gravity: .focusPoint(x: 0.1, y: 0.9)))
        }
        #expect(try options("c:0:0").crop == nil)
        #expect(
            error("/_/c:-1:10/plain/\(Self.source)")?.message.hasPrefix(
                "invalid argument '-1' for processing option 'c'") == true)
    }

    @Test func backgroundForms() throws {
        for name in ["background", "bg"] {
            #expect(try options("\(name):255:0:10").background == .init(red: 255, green: 0, blue: 10))
            #expect(try options("\(name):ff8000").background == .init(red: 255, green: 128, blue: 0))
            #expect(try options("\(name):0Fa").background == .init(red: 0, green: 255, blue: 170))
        }
        #expect(try options("bg:fff/bg:").background == nil)
        #expect(
            error("/_/bg:256:0:0/plain/\(Self.source)")?.message
                == "invalid argument '256' for processing option 'bg': give red, green and blue from 0 to 255")
        #expect(error("/_/bg:ggg/plain/\(Self.source)")?.status == 400)
    }

    @Test func harmlessOptionsAreAcceptedAndExpiryIsChecked() throws {
        var expected = ImgproxyOptions()
        expected.stripMetadata = false
        #expect(try options("cb:123/cachebuster:abc/sm:1/strip_metadata:false") == expected)
        let future = Int(Date().timeIntervalSince1970) + 3600
        #expect(try options("exp:\(future)").expires != nil)
        let expired = error("/_/exp:1000/plain/\(Self.source)")
        #expect(expired == ImgproxyURLError(status: 404, message: "the URL has expired"))
    }

    @Test func badArgumentsName400TheOptionAndArgument() {
        let cases: [(String, String)] = [
            (
                "w:abc",
                "invalid argument 'abc' for processing option 'w': give a whole number of pixels from 0 to 16384"
            ),
            (
                "height:-5",
                "invalid argument '-5' for processing option 'height': give a whole number of pixels from 0 to 16384"
            ),
            (
                "w:100000",
                "invalid argument '100000' for processing option 'w': give a whole number of pixels from 0 to 16384"
            ),
            (
                "rt:stretch",
                "invalid argument 'stretch' for processing option 'rt': give fit, fill, fill-down, force or auto"
            ),
            ("el:yes", "invalid argument 'yes' for processing option 'el': give 1, t or true, or 0, f or false"),
            (
                "q:101",
                "invalid argument '101' for processing option 'q': give a whole number from 1 to 100 (0 for the default)"
            ),
            ("rot:45", "invalid argument '45' for processing option 'rot': give a multiple of 90 degrees"),
            ("bl:-1", "invalid argument '-1' for processing option 'bl': give a sigma from 0 to 250"),
            ("dpr:0", "invalid argument '0' for processing option 'dpr': give a number greater than 0 and at most 8.0"),
            ("w:1:2", "processing option 'w' takes 1 arguments, got 2"),
            (
                "rs:fit:10:10:0:1:sm",
                "invalid argument 'sm' for processing option 'rs': extend places the image by ce, no, so, ea, we, "
                    + "the corners or fp:x:y"
            ),
            (
                "f:xyz",
                "invalid argument 'xyz' for processing option 'f': this server encodes avif, bmp, gif, heic, ico, jpg, jxl, png, tiff, webp"
            )
        ]
        for (optionsPath, message) in cases {
            let found = error("/_/\(optionsPath)/plain/\(Self.source)")
            #expect(found?.status == 400, "\(optionsPath)")
            #expect(found?.message == message, "\(optionsPath)")
        }
    }

    @Test func unknownAndUnsupportedOptionsAre400NamingThem() {
        #expect(
            error("/_/frobnicate:1/plain/\(Self.source)")
                == ImgproxyURLError(status: 400, message: "unknown processing option 'frobnicate'"))
        #expect(
            error("/_/brightness:10/plain/\(Self.source)")
                == ImgproxyURLError(
                    status: 400,
                    message:
                        "processing option 'brightness' is part of imgproxy Pro and is not supported by this server")
        )
        #expect(error("/_/wmu:abc/plain/\(Self.source)")?.message.contains("'wmu'") == true)
    }

    @Test func formatIsLimitedToAvailableEncodersAndTheExtensionWins() throws {
        let available: Set<ImageFormat> = [.jpeg, .png, .webp]
        #expect(
            error("/_/f:avif/plain/\(Self.source)", availableFormats: available)?.message
                == "invalid argument 'avif' for processing option 'f': this server encodes jpg, png, webp")
        #expect(
            error("/_/plain/\(Self.source)@avif", availableFormats: available)?.message
                == "invalid argument 'avif' for processing option 'extension': this server encodes jpg, png, webp")
        let url = try ImgproxyURL.parse(
            path: "/_/f:png/plain/\(Self.source)@jpg", signature: .disabled,
            availableFormats: available)
        #expect(url.format == .jpeg)
    }

    // MARK: Transforms

    @Test func transformsFollowImgproxysOrder() throws {
        let url = try ImgproxyURL.parse(
            path: "/_/rs:fill:100:50/rot:90/bl:3/bg:010203/plain/\(Self.source)@png",
            signature: .disabled)
        // The resize runs before the turn, with the sizes swapped, so shrink-on-load still applies. Turning the
        // source upright by its orientation (auto_rotate) is the pipeline's, ahead of all of them.
        #expect(url.options.autoRotate)
        #expect(
            url.transforms.map(\.identifier) == [
                ImgproxyResize(resizingType: .fill, width: 50, height: 100).identifier, "rotate(deg=90)",
                "blur(sigma=3.0)", "flatten(r=1,g=2,b=3)"
            ])
        // A large source is decoded reduced (shrink-on-load), turn or no turn.
        let stored = PixelSize(width: 4000, height: 3000)
        #expect(ShrinkOnLoad(transforms: url.transforms, storedSize: stored)?.minimumSize.width ?? 4000 < 4000)
        let plain = try ImgproxyURL.parse(path: "/_/ar:0/plain/\(Self.source)", signature: .disabled)
        #expect(plain.transforms.isEmpty && !plain.options.autoRotate)
        // Alpha is flattened onto white for JPEG only.
        #expect(plain.transforms(encodingAs: .jpeg).map(\.identifier) == ["flatten(r=255,g=255,b=255)"])
        #expect(plain.transforms(encodingAs: .webp).isEmpty)
        #expect(plain.transforms(encodingAs: nil).isEmpty)
        // A server whose default is no auto-rotation (IMGPROXY_AUTO_ROTATE=false): off unless the URL says ar:1.
        var noTurn = ImgproxyOptions()
        noTurn.autoRotate = false
        let unturned = try ImgproxyURL.parse(path: "/_/plain/\(Self.source)", signature: .disabled, defaults: noTurn)
        #expect(!unturned.options.autoRotate && unturned.transforms.isEmpty)
        let asked = try ImgproxyURL.parse(path: "/_/ar:1/plain/\(Self.source)", signature: .disabled, defaults: noTurn)
        #expect(asked.options.autoRotate && asked.transforms.isEmpty)
    }

    @Test func aSignedURLMakesAnImageOfTheRightSizeAndPixels() throws {
        let signer = try ImgproxySignature(hexKeys: ["00ff00ff"], hexSalts: ["abcd"])
        // Sizes and gravity refer to the image as delivered, turned a quarter clockwise: the 400x200
        // quadrant image becomes 200x400 with green top-left, red top-right. Keep its top half, fill 60x90
        // from the east: a 90x90 scale cut to its right 60 columns, 15 of green then red.
        let rest = "/c:0:200:no/rs:fill:60:90/g:ea/rot:90/bg:000/q:55/plain/\(Self.source)@jpg"
        let signature = ImgproxySignatureTests.independentSignature(keyHex: "00ff00ff", saltHex: "abcd", path: rest)
        let url = try ImgproxyURL.parse(path: "/\(signature)\(rest)", signature: signer)
        #expect(url.quality == 55 && url.format == .jpeg)
        let image = ImgproxyResizeTests.quadrants(width: 400, height: 200)
        let out = try url.transforms(encodingAs: .jpeg).reduce(image) { try $1.transform($0) }
        #expect(out.width == 60 && out.height == 90)
        for y in [5, 45, 85] {
            #expect(ImgproxyResizeTests.pixel(out, 3, y) == ImgproxyResizeTests.color(ImgproxyResizeTests.green))
            #expect(ImgproxyResizeTests.pixel(out, 50, y) == ImgproxyResizeTests.color(ImgproxyResizeTests.red))
        }
    }

    @Test func longArgumentsAreClippedInMessages() {
        let long = String(repeating: "x", count: 500)
        #expect(
            error("/_/w:\(long)/plain/\(Self.source)")?.message
                == "invalid argument '\(String(repeating: "x", count: 64))...' for processing option 'w': "
                + "give a whole number of pixels from 0 to 16384")
        #expect(error("/_/pr/plain/\(Self.source)")?.status == 400)
        #expect(error("/_/pr:/plain/\(Self.source)")?.message == "unknown preset ''")
    }
}
