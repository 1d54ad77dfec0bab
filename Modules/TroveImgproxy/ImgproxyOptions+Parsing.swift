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
        "exp": "expires", "sm": "strip_metadata", "dpr": "dpr", "ex": "extend", "exar": "extend_aspect_ratio",
        "extend_ar": "extend_aspect_ratio", "mw": "min-width", "mh": "min-height", "z": "zoom", "pd": "padding",
        "fl": "flip", "t": "trim", "sh": "sharpen", "pix": "pixelate", "fq": "format_quality", "mb": "max_bytes",
        "skp": "skip_processing", "raw": "raw", "fn": "filename", "att": "return_attachment", "wm": "watermark",
        "kcr": "keep_copyright", "scp": "strip_color_profile", "ph": "preserve_hdr", "eth": "enforce_thumbnail",
        "msr": "max_src_resolution", "msfs": "max_src_file_size", "maf": "max_animation_frames",
        "mafr": "max_animation_frame_resolution", "mrd": "max_result_dimension",
        // Trove's extension, under a name of its own and with no short form, so no imgproxy name can collide.
        "trove_placeholder": "trove_placeholder"
    ]

    /// Options only a server with `--allow-security-options` accepts in URLs.
    static let securityOptions: Set<String> = [
        "max_src_resolution", "max_src_file_size", "max_animation_frames", "max_animation_frame_resolution",
        "max_result_dimension"
    ]

    /// imgproxy options (and their short names) this server does not carry out: they get a 400 that says so,
    /// rather than "unknown".
    static let unsupportedNames: Set<String> = [
        "watermark_url", "wmu", "watermark_text", "wmt", "watermark_size", "wms", "watermark_rotate", "wm_rot",
        "wmr", "watermark_shadow", "wmsh", "page", "pg", "pages", "pgs", "disable_animation", "da",
        "resizing_algorithm", "ra", "adjust", "a", "brightness", "br", "contrast", "co", "saturation", "sa",
        "monochrome", "mc", "duotone", "dt", "unsharp_masking", "ush", "autoquality", "aq", "crop_aspect_ratio",
        "crop_ar", "car", "style", "st", "dpi", "hashsum", "hs", "background_alpha", "bga", "colorize", "col",
        "gradient", "gr", "objects_position", "obj_pos", "op", "fallback_image_url", "fiu", "blur_detections",
        "bd", "draw_detections", "dd", "video_thumbnail_second", "vts", "video_thumbnail_keyframes", "vtk",
        "video_thumbnail_tile", "vtt", "video_thumbnail_animation", "vta", "jpeg_options", "jpgo", "png_options",
        "pngo", "webp_options", "webpo", "avif_options", "avifo"
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
                throw .badRequest(
                    "processing option '\(name)' is part of imgproxy Pro and is not supported by this server")
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
        if Self.securityOptions.contains(canonical), securityOptionNamed == nil { securityOptionNamed = name }
        switch canonical {
        case "resize":
            try expectCount(1...Int.max)
            if !args[0].isEmpty { resizingType = try Self.resizingType(args[0], option: name) }
            try applySize(Array(args.dropFirst()), option: name)
        case "size":
            try expectCount(1...Int.max)
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
            // The height may be left out, as imgproxy allows: 0, the whole height.
            try expectCount(1...5)
            let cropWidth = try Self.cropSize(args[0], option: name)
            let cropHeight = args.count > 1 ? try Self.cropSize(args[1], option: name) : 0
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
            stripMetadata = try Self.bool(args[0], option: name)
        case "extend":
            try expectCount(1...4)
            extend = try Self.extendGravity(args, option: name)
        case "extend_aspect_ratio":
            try expectCount(1...4)
            extendAspectRatio = try Self.extendGravity(args, option: name)
        case "min-width":
            try expectCount(1...1)
            minWidth = try Self.dimension(args[0], option: name)
        case "min-height":
            try expectCount(1...1)
            minHeight = try Self.dimension(args[0], option: name)
        case "zoom":
            try expectCount(1...2)
            zoomX = try Self.zoom(args[0], option: name)
            zoomY = args.count > 1 ? try Self.zoom(args[1], option: name) : zoomX
        case "padding":
            try expectCount(1...4)
            padding = try Self.padding(args, option: name)
        case "flip":
            try expectCount(1...2)
            flipHorizontal = args[0].isEmpty ? false : try Self.bool(args[0], option: name)
            flipVertical = args.count > 1 && !args[1].isEmpty ? try Self.bool(args[1], option: name) : false
        case "trim":
            try expectCount(1...4)
            trim = try Self.trim(args, option: name)
        case "sharpen":
            try expectCount(1...1)
            guard let value = Double(args[0]), value >= 0, value <= SharpenTransformer.maximumSigma else {
                throw .badArgument(name, args[0], "give a sigma from 0 to \(Int(SharpenTransformer.maximumSigma))")
            }
            sharpenSigma = value
        case "pixelate":
            try expectCount(1...1)
            guard let value = Int(args[0]), (0...PixelateTransformer.maximumSize).contains(value) else {
                throw .badArgument(
                    name, args[0], "give a block size in pixels from 0 to \(PixelateTransformer.maximumSize)")
            }
            pixelateSize = value
        case "format_quality":
            guard !args.isEmpty, args.count % 2 == 0 else {
                throw .badRequest(
                    "processing option '\(name)' takes format:quality pairs (e.g. fq:avif:50:webp:70), "
                        + "got \(args.count) arguments")
            }
            for index in stride(from: 0, to: args.count, by: 2) {
                let format = try Self.format(args[index], option: name, availableFormats: nil)
                guard let value = Int(args[index + 1]), (0...100).contains(value) else {
                    throw .badArgument(name, args[index + 1], "give a quality from 1 to 100 (0 for the default)")
                }
                formatQuality[format] = value == 0 ? nil : value
            }
        case "max_bytes":
            try expectCount(1...1)
            guard let value = Int(args[0]), value >= 0 else {
                throw .badArgument(name, args[0], "give a number of bytes (0 for no limit)")
            }
            maxBytes = value
        case "skip_processing":
            try expectCount(1...Int.max)
            var formats = Set<ImageFormat>()
            for text in args where !text.isEmpty {
                formats.insert(try Self.format(text, option: name, availableFormats: nil))
            }
            skipProcessing = formats
        case "raw":
            try expectCount(1...1)
            raw = try Self.bool(args[0], option: name)
        case "filename":
            try expectCount(1...2)
            filename = try Self.filename(args, option: name)
        case "return_attachment":
            try expectCount(1...1)
            returnAttachment = try Self.bool(args[0], option: name)
        case "watermark":
            try expectCount(1...6)
            watermark = try Self.watermark(args, option: name)
        case "keep_copyright":
            try expectCount(1...1)
            keepCopyright = try Self.bool(args[0], option: name)
        case "strip_color_profile":
            try expectCount(1...1)
            stripColorProfile = try Self.bool(args[0], option: name)
        case "preserve_hdr":
            try expectCount(1...1)
            preserveHDR = try Self.bool(args[0], option: name)
        case "enforce_thumbnail":
            try expectCount(1...1)
            enforceThumbnail = try Self.bool(args[0], option: name)
        case "max_src_resolution":
            try expectCount(1...1)
            limits.maxSourceResolution = try Self.positiveNumber(args[0], option: name, unit: "megapixels")
        case "max_src_file_size":
            try expectCount(1...1)
            limits.maxSourceFileSize = Int(try Self.positiveNumber(args[0], option: name, unit: "bytes"))
        case "max_animation_frames":
            try expectCount(1...1)
            limits.maxAnimationFrames = Int(try Self.positiveNumber(args[0], option: name, unit: "frames"))
        case "max_animation_frame_resolution":
            try expectCount(1...1)
            limits.maxAnimationFrameResolution = try Self.positiveNumber(args[0], option: name, unit: "megapixels")
        case "max_result_dimension":
            try expectCount(1...1)
            let side = Int(try Self.positiveNumber(args[0], option: name, unit: "pixels"))
            limits.maxResultDimension = side == 0 ? nil : side
        case "trove_placeholder":
            // Trove's own namespace: imgproxy (open source or Pro) has no option of this name to collide with.
            try expectCount(1...3)
            let spelled = args.count == 3 ? "\(args[0]):\(args[1])x\(args[2])" : args[0]
            guard args.count != 2, let kind = PlaceholderKind(parsing: spelled) else {
                throw .badArgument(
                    name, args.joined(separator: ":"), "give thumbhash, blurhash, or blurhash:X:Y with X and Y in 1...9"
                )
            }
            placeholder = kind
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
        if args.count > 3, !args[3].isEmpty { extend = try Self.extendGravity(Array(args[3...]), option: option) }
    }
}
