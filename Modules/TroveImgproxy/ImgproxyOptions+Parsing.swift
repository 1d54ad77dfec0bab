import Foundation
import Trove

/// One `name:arg:arg` segment of an imgproxy URL or preset, not yet interpreted.
struct RawOption: Sendable, Equatable {
    var name: String
    var arguments: [String]

    init(segment: String) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        name = parts[0]
        arguments = Array(parts.dropFirst())
    }
}

extension ImgproxyOptions {
    /// Short names and aliases to the option each stands for.
    static let canonicalNames: [String: String] = [
        "rs": "resize", "s": "size", "rt": "resizing_type", "w": "width", "h": "height", "el": "enlarge",
        "g": "gravity", "c": "crop", "q": "quality", "f": "format", "ext": "format", "bl": "blur",
        "rot": "rotate", "bg": "background", "ar": "auto_rotate", "pr": "preset", "cb": "cachebuster",
        "exp": "expires", "sm": "strip_metadata", "dpr": "dpr"
    ]

    /// imgproxy options (and their short names) this server does not carry out: they get a 400 that says so,
    /// rather than "unknown".
    static let unsupportedNames: Set<String> = [
        "extend", "ex", "extend_aspect_ratio", "extend_ar", "exar", "min-width", "mw", "min-height", "mh",
        "zoom", "z", "trim", "t", "padding", "pd", "sharpen", "sh", "pixelate", "pix", "watermark", "wm",
        "watermark_url", "wmu", "watermark_text", "wmt", "watermark_size", "wms", "format_quality", "fq",
        "max_bytes", "mb", "skip_processing", "skp", "raw", "filename", "fn", "return_attachment", "att",
        "keep_copyright", "kcr", "strip_color_profile", "scp", "enforce_thumbnail", "eth", "page", "pg",
        "pages", "pgs", "disable_animation", "da", "resizing_algorithm", "ra", "adjust", "a", "brightness", "br",
        "contrast", "co", "saturation", "sa", "monochrome", "mc", "duotone", "dt", "unsharp_masking", "ush",
        "autoquality", "aq", "crop_aspect_ratio", "crop_ar", "car", "style", "st", "dpi", "hashsum", "hs",
        "background_alpha", "bga", "colorize", "col", "gradient", "gr", "objects_position", "obj_pos", "op",
        "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
        "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd", "fallback_image_url", "fiu",
        "blur_detections", "bd", "draw_detections", "dd", "video_thumbnail_second", "vts"
    ]

    /// Output formats a URL may name (by extension); the server may narrow this to its encoders.
    static let knownFormats: Set<ImageFormat> = [.jpeg, .png, .webp, .avif, .gif, .bmp, .heic, .jxl, "tiff", "ico"]

    /// Applies one option. `presets` expands `preset`; `expanding` holds the presets being expanded, to refuse
    /// a preset that names itself; `availableFormats`, when given, limits `format`.
    mutating func apply(
        _ option: RawOption, presets: ImgproxyPresets, expanding: inout [String],
        availableFormats: Set<ImageFormat>?
    ) throws(ImgproxyURLError) {
        let name = ImgproxyURLError.clipped(option.name)
        let args = option.arguments
        guard let canonical = Self.canonicalNames[name] ?? (Self.canonicalNames.values.contains(name) ? name : nil)
        else {
            if Self.unsupportedNames.contains(name) {
                throw .badRequest("processing option '\(name)' is not supported by this server")
            }
            throw .badRequest("unknown processing option '\(name)'")
        }
        func expectCount(_ range: ClosedRange<Int>) throws(ImgproxyURLError) {
            guard range.contains(args.count) else {
                let count =
                    range.lowerBound == range.upperBound
                    ? "\(range.lowerBound)"
                    : range.upperBound == Int.max
                        ? "at least \(range.lowerBound)"
                        : "\(range.lowerBound) to \(range.upperBound)"
                throw .badRequest("processing option '\(name)' takes \(count) arguments, got \(args.count)")
            }
        }
        switch canonical {
        case "resize":
            try expectCount(1...8)
            if !args[0].isEmpty { resizingType = try Self.resizingType(args[0], option: name) }
            try applySize(Array(args.dropFirst()), option: name)
        case "size":
            try expectCount(1...7)
            try applySize(args, option: name)
        case "resizing_type":
            try expectCount(1...1)
            resizingType = try Self.resizingType(args[0], option: name)
        case "width":
            try expectCount(1...1)
            width = try Self.dimension(args[0], option: name)
        case "height":
            try expectCount(1...1)
            height = try Self.dimension(args[0], option: name)
        case "enlarge":
            try expectCount(1...1)
            enlarge = try Self.bool(args[0], option: name)
        case "dpr":
            try expectCount(1...1)
            guard let value = Double(args[0]), value > 0, value <= Self.maximumDPR else {
                throw .badArgument(name, args[0], "give a number greater than 0 and at most \(Self.maximumDPR)")
            }
            dpr = value
        case "gravity":
            try expectCount(1...3)
            gravity = try Self.gravity(args, option: name)
        case "crop":
            try expectCount(2...5)
            let cropWidth = try Self.cropSize(args[0], option: name)
            let cropHeight = try Self.cropSize(args[1], option: name)
            let cropGravity =
                args.count > 2 && !args[2].isEmpty
                ? try Self.gravity(Array(args.dropFirst(2)), option: name) : nil
            crop =
                cropWidth == 0 && cropHeight == 0 && cropGravity == nil
                ? nil : ImgproxyResize.Crop(width: cropWidth, height: cropHeight, gravity: cropGravity)
        case "quality":
            try expectCount(1...1)
            guard let value = Int(args[0]), (0...100).contains(value) else {
                throw .badArgument(name, args[0], "give a whole number from 1 to 100 (0 for the default)")
            }
            quality = value == 0 ? nil : value
        case "format":
            try expectCount(1...1)
            format = try Self.format(args[0], option: name, availableFormats: availableFormats)
        case "blur":
            try expectCount(1...1)
            guard let value = Double(args[0]), value >= 0, value <= BlurTransformer.maximumSigma else {
                throw .badArgument(name, args[0], "give a sigma from 0 to \(Int(BlurTransformer.maximumSigma))")
            }
            blurSigma = value
        case "rotate":
            try expectCount(1...1)
            guard let value = Int(args[0]), value % 90 == 0 else {
                throw .badArgument(name, args[0], "give a multiple of 90 degrees")
            }
            rotation = (value % 360 + 360) % 360
        case "background":
            background = try Self.color(args, option: name)
        case "auto_rotate":
            try expectCount(1...1)
            autoRotate = try Self.bool(args[0], option: name)
        case "preset":
            try expectCount(1...Int.max)
            for preset in args {
                try applyPreset(preset, presets: presets, expanding: &expanding, availableFormats: availableFormats)
            }
        case "cachebuster":
            // Changes the URL (and so caches in front) without changing the image.
            break
        case "strip_metadata":
            // Trove's encoders write no metadata: stripping is all they do.
            try expectCount(1...1)
            _ = try Self.bool(args[0], option: name)
        case "expires":
            try expectCount(1...1)
            guard let seconds = Int(args[0]) else {
                throw .badArgument(name, args[0], "give a Unix timestamp in seconds")
            }
            expires = Date(timeIntervalSince1970: TimeInterval(seconds))
        default:
            throw .badRequest("unknown processing option '\(name)'")
        }
    }

    /// Applies the preset `name`'s options where it is named.
    mutating func applyPreset(
        _ name: String, presets: ImgproxyPresets, expanding: inout [String],
        availableFormats: Set<ImageFormat>?
    ) throws(ImgproxyURLError) {
        guard let options = presets.options(named: name) else {
            throw .badRequest("unknown preset '\(ImgproxyURLError.clipped(name))'")
        }
        guard !expanding.contains(name) else {
            throw .badRequest("preset '\(name)' names itself (through \(expanding.joined(separator: " > ")))")
        }
        expanding.append(name)
        defer { expanding.removeLast() }
        for option in options {
            try apply(option, presets: presets, expanding: &expanding, availableFormats: availableFormats)
        }
    }

    /// `width:height:enlarge:extend...` of `resize` and `size`; empty arguments keep the current value.
    private mutating func applySize(_ args: [String], option: String) throws(ImgproxyURLError) {
        if args.count > 0, !args[0].isEmpty { width = try Self.dimension(args[0], option: option) }
        if args.count > 1, !args[1].isEmpty { height = try Self.dimension(args[1], option: option) }
        if args.count > 2, !args[2].isEmpty { enlarge = try Self.bool(args[2], option: option) }
        if args.count > 3, !args[3].isEmpty, try Self.bool(args[3], option: option) {
            throw .badRequest("processing option '\(option)': extend is not supported by this server")
        }
    }

    static func resizingType(_ text: String, option: String) throws(ImgproxyURLError) -> ImgproxyResize.ResizingType {
        guard let type = ImgproxyResize.ResizingType(rawValue: text) else {
            throw .badArgument(option, text, "give fit, fill, fill-down, force or auto")
        }
        return type
    }

    static func dimension(_ text: String, option: String) throws(ImgproxyURLError) -> Int {
        guard let value = Int(text), (0...maximumDimension).contains(value) else {
            throw .badArgument(option, text, "give a whole number of pixels from 0 to \(maximumDimension)")
        }
        return value
    }

    static func cropSize(_ text: String, option: String) throws(ImgproxyURLError) -> Double {
        guard let value = Double(text), value >= 0, value <= Double(maximumDimension) else {
            throw .badArgument(
                option, text,
                "give pixels (1 to \(maximumDimension)), a fraction below 1, or 0 for the whole size")
        }
        return value
    }

    static func bool(_ text: String, option: String) throws(ImgproxyURLError) -> Bool {
        switch text {
        case "1", "t", "T", "true", "TRUE", "True": return true
        case "0", "f", "F", "false", "FALSE", "False": return false
        default: throw .badArgument(option, text, "give 1, t or true, or 0, f or false")
        }
    }

    static func gravity(_ args: [String], option: String) throws(ImgproxyURLError) -> ImgproxyGravity {
        let type = args[0]
        func number(_ index: Int) throws(ImgproxyURLError) -> Double {
            guard index < args.count, !args[index].isEmpty else { return 0 }
            guard let value = Double(args[index]), value.isFinite, abs(value) <= Double(maximumDimension) else {
                throw .badArgument(option, args[index], "give a gravity offset in pixels or a fraction below 1")
            }
            return value
        }
        if type == "fp" {
            guard args.count == 3, let x = Double(args[1]), let y = Double(args[2]),
                (0...1).contains(x), (0...1).contains(y)
            else {
                throw .badArgument(
                    option, args.joined(separator: ":"),
                    "give fp:x:y with x and y from 0 to 1")
            }
            return .focusPoint(x: x, y: y)
        }
        guard let anchor = ImgproxyGravity.Anchor(rawValue: type) else {
            if ["sm", "obj", "objw"].contains(type) {
                throw .badRequest("processing option '\(option)': gravity '\(type)' is not supported by this server")
            }
            throw .badArgument(option, type, "give no, so, ea, we, noea, nowe, soea, sowe, ce or fp:x:y")
        }
        return .anchor(anchor, xOffset: try number(1), yOffset: try number(2))
    }

    static func color(_ args: [String], option: String) throws(ImgproxyURLError) -> Color? {
        switch args.count {
        case 0:
            return nil
        case 1 where args[0].isEmpty:
            return nil
        case 1:
            var hex = args[0]
            if hex.utf8.count == 3 { hex = String(hex.flatMap { [$0, $0] }) }
            guard hex.utf8.count == 6, let bytes = Hex.decode(hex) else {
                throw .badArgument(option, args[0], "give a hex colour (rrggbb or rgb) or red:green:blue")
            }
            return Color(red: bytes[0], green: bytes[1], blue: bytes[2])
        case 3:
            var channels = [UInt8]()
            for text in args {
                guard let value = UInt8(text) else {
                    throw .badArgument(option, text, "give red, green and blue from 0 to 255")
                }
                channels.append(value)
            }
            return Color(red: channels[0], green: channels[1], blue: channels[2])
        default:
            throw .badRequest(
                "processing option '\(option)' takes a hex colour or red:green:blue, got \(args.count) arguments")
        }
    }

    static func format(
        _ text: String, option: String,
        availableFormats: Set<ImageFormat>?
    ) throws(ImgproxyURLError) -> ImageFormat {
        let format = ImageFormat(fileExtension: text)
        guard Self.knownFormats.contains(format), availableFormats?.contains(format) ?? true else {
            let names = (availableFormats ?? Self.knownFormats).map(\.fileExtension).sorted().joined(separator: ", ")
            throw .badArgument(option, text, "this server encodes \(names)")
        }
        return format
    }
}
