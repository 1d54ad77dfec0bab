import Foundation
import Trove

// The values inside one option's arguments (dimensions, gravities, colours, paddings, watermarks, ...),
// each read and checked on its own, with the option named in the error.
extension ImgproxyOptions {
    /// `extend:gravity...`: the gravity when extending, nil when not; `sm` and object gravities refused.
    static func extendGravity(_ args: [String], option: String) throws(ImgproxyURLError) -> ImgproxyGravity? {
        guard try bool(args[0], option: option) else { return nil }
        guard args.count > 1, !args[1].isEmpty else { return .center }
        let placement = try gravity(Array(args.dropFirst()), option: option)
        if placement == .smart {
            throw .badArgument(option, "sm", "extend places the image by ce, no, so, ea, we, the corners or fp:x:y")
        }
        return placement
    }

    static func zoom(_ text: String, option: String) throws(ImgproxyURLError) -> Double {
        guard let value = Double(text), value > 0, value <= maximumDPR else {
            throw .badArgument(option, text, "give a factor greater than 0 and at most \(maximumDPR)")
        }
        return value
    }

    /// CSS order: one value for all sides, two for vertical:horizontal, and so on; empty values follow CSS too.
    static func padding(_ args: [String], option: String) throws(ImgproxyURLError) -> ImgproxyPadding? {
        var values = [Int?]()
        for text in args {
            values.append(text.isEmpty ? nil : try dimension(text, option: option))
        }
        guard values.contains(where: { $0 != nil }) else {
            throw .badRequest("processing option '\(option)' needs at least one padding size")
        }
        func value(_ index: Int) -> Int? { index < values.count ? values[index] : nil }
        let top = value(0) ?? 0
        let right = value(1) ?? top
        let padding = ImgproxyPadding(top: top, right: right, bottom: value(2) ?? top, left: value(3) ?? right)
        return padding.top == 0 && padding.right == 0 && padding.bottom == 0 && padding.left == 0 ? nil : padding
    }

    static func trim(_ args: [String], option: String) throws(ImgproxyURLError) -> TrimTransformer? {
        guard let threshold = Double(args[0]), threshold >= 0, threshold <= 255 else {
            throw .badArgument(option, args[0], "give a threshold from 0 to 255")
        }
        var color: FillColor?
        if args.count > 1, !args[1].isEmpty, let picked = try Self.color([args[1]], option: option) {
            color = FillColor(red: picked.red, green: picked.green, blue: picked.blue)
        }
        let equalHorizontal = args.count > 2 && !args[2].isEmpty ? try bool(args[2], option: option) : false
        let equalVertical = args.count > 3 && !args[3].isEmpty ? try bool(args[3], option: option) : false
        return TrimTransformer(
            threshold: threshold, color: color, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
    }

    /// `filename:name` or `filename:base64url:1`; a name may not hold control characters, quotes or slashes.
    static func filename(_ args: [String], option: String) throws(ImgproxyURLError) -> String? {
        var name = args[0]
        if args.count > 1, !args[1].isEmpty, try bool(args[1], option: option) {
            guard let bytes = Base64URL.decode(name), let decoded = String(bytes: bytes, encoding: .utf8) else {
                throw .badArgument(option, name, "give URL-safe base64 of a UTF-8 file name")
            }
            name = decoded
        }
        guard !name.isEmpty else { return nil }
        guard name.utf8.count <= 255, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{7F}" }),
            !name.contains("/"), !name.contains("\\")
        else {
            throw .badArgument(
                option, name, "give a file name of at most 255 bytes without slashes or control characters")
        }
        return name
    }

    static func watermark(_ args: [String], option: String) throws(ImgproxyURLError) -> ImgproxyWatermark? {
        guard let opacity = Double(args[0]), (0...1).contains(opacity) else {
            throw .badArgument(option, args[0], "give an opacity from 0 to 1")
        }
        guard opacity > 0 else { return nil }
        var mark = ImgproxyWatermark(opacity: opacity)
        if args.count > 1, !args[1].isEmpty {
            guard let position = WatermarkTransformer.Position(rawValue: args[1]) else {
                throw .badArgument(option, args[1], "give ce, no, so, ea, we, noea, nowe, soea, sowe or re")
            }
            mark.position = position
        }
        func number(_ index: Int, _ range: ClosedRange<Double>) throws(ImgproxyURLError) -> Double {
            guard index < args.count, !args[index].isEmpty else { return 0 }
            guard let value = Double(args[index]), range.contains(value) else {
                throw .badArgument(option, args[index], "give a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        let limit = Double(maximumDimension)
        mark.xOffset = try number(2, -limit...limit)
        mark.yOffset = try number(3, -limit...limit)
        mark.scale = try number(4, 0...1)
        return mark
    }

    static func positiveNumber(_ text: String, option: String, unit: String) throws(ImgproxyURLError) -> Double {
        guard let value = Double(text), value >= 0, value <= 1e12 else {
            throw .badArgument(option, text, "give a number of \(unit), 0 or more")
        }
        return value
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
            if type == "sm" {
                guard args.count == 1 else {
                    throw .badRequest("processing option '\(option)': smart gravity takes no offsets")
                }
                return .smart
            }
            if ["obj", "objw"].contains(type) {
                throw .badRequest(
                    "processing option '\(option)': gravity '\(type)' is part of imgproxy Pro and is not supported "
                        + "by this server")
            }
            throw .badArgument(option, type, "give no, so, ea, we, noea, nowe, soea, sowe, ce, sm or fp:x:y")
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
