import TroveCore

/// The transformer factories this module provides, for registering in a `PluginRegistry`. Each reads
/// its spec parameters strictly: an unknown key, a missing one or a bad value is an
/// `invalidTransformParameter` that names the parameter and says what is accepted.
package enum StandardTransformers {
    /// Every factory below, in the order `PluginRegistry.standard` registers them.
    package static let factories: [TransformerFactory] = [
        resize, crop, rotate, flip, orient, grayscale, blur, round, circle, tint, opacity
    ]

    /// `resize:w=200,h=100,mode=fill,filter=lanczos3,upscale=true`; give w, h or both.
    package static let resize = TransformerFactory(name: "resize") { values in
        let p = try SpecParameters(values, transform: "resize", known: ["w", "h", "mode", "filter", "upscale"])
        let width = try p.pixels("w"), height = try p.pixels("h")
        guard width != nil || height != nil else {
            throw p.invalid("w", "or 'h' is required; give w, h or both (e.g. resize:w=200)")
        }
        return ResizeTransformer(
            width: width, height: height,
            mode: try p.choice("mode", default: ResizeTransformer.Mode.fit),
            filter: try p.choice("filter", default: ResizeTransformer.Filter.bilinear),
            upscale: try p.flag("upscale"))
    }

    /// `crop:x=10,y=20,w=100,h=50` (a rectangle) or `crop:w=100,h=50,gravity=north` (gravity defaults to center).
    package static let crop = TransformerFactory(name: "crop") { values in
        let p = try SpecParameters(values, transform: "crop", known: ["x", "y", "w", "h", "gravity"])
        guard let width = try p.pixels("w") else { throw p.invalid("w", "is required (e.g. crop:w=100,h=50)") }
        guard let height = try p.pixels("h") else { throw p.invalid("h", "is required (e.g. crop:w=100,h=50)") }
        let maximum = ResizeTransformer.maximumDimension
        switch (
            try p.pixels("x", maximum: maximum, allowZero: true), try p.pixels("y", maximum: maximum, allowZero: true)
        ) {
        case (nil, nil):
            return CropTransformer(
                width: width, height: height,
                gravity: try p.choice("gravity", default: CropTransformer.Gravity.center))
        case let (x?, y?):
            guard !p.has("gravity") else {
                throw p.invalid("gravity", "cannot be combined with x and y; give either x,y or gravity")
            }
            return CropTransformer(x: x, y: y, width: width, height: height)
        case (nil, _?):
            throw p.invalid("x", "is required with 'y'; give both x and y, or neither and a gravity")
        case (_?, nil):
            throw p.invalid("y", "is required with 'x'; give both x and y, or neither and a gravity")
        }
    }

    /// `rotate:deg=90` (90, 180 or 270, clockwise).
    package static let rotate = TransformerFactory(name: "rotate") { values in
        let p = try SpecParameters(values, transform: "rotate", known: ["deg"])
        let text = try p.required("deg", example: "rotate:deg=90")
        guard let degrees = Int(text), let angle = RotateTransformer.Angle(rawValue: degrees) else {
            throw p.invalid("deg", "must be 90, 180 or 270 (clockwise), got '\(text)'")
        }
        return RotateTransformer(angle)
    }

    /// `flip:axis=h` (left-right) or `flip:axis=v` (top-bottom).
    package static let flip = TransformerFactory(name: "flip") { values in
        let p = try SpecParameters(values, transform: "flip", known: ["axis"])
        _ = try p.required("axis", example: "flip:axis=h")
        return FlipTransformer(try p.choice("axis", default: FlipTransformer.Axis.h))
    }

    /// `orient`: applies the EXIF orientation the decoder recorded.
    package static let orient = TransformerFactory(name: "orient") { values in
        _ = try SpecParameters(values, transform: "orient", known: [])
        return OrientTransformer()
    }

    /// `grayscale`: ITU-R 601 luma, alpha kept.
    package static let grayscale = TransformerFactory(name: "grayscale") { values in
        _ = try SpecParameters(values, transform: "grayscale", known: [])
        return GrayscaleTransformer()
    }

    /// `blur:sigma=2` (pixels, greater than 0 and at most 250).
    package static let blur = TransformerFactory(name: "blur") { values in
        let p = try SpecParameters(values, transform: "blur", known: ["sigma"])
        _ = try p.required("sigma", example: "blur:sigma=2")
        let sigma = try p.number("sigma", in: 0...BlurTransformer.maximumSigma, lowerBoundExcluded: true)
        return BlurTransformer(sigma: sigma ?? 0)
    }

    /// `round:radius=16` (pixels).
    package static let round = TransformerFactory(name: "round") { values in
        let p = try SpecParameters(values, transform: "round", known: ["radius"])
        _ = try p.required("radius", example: "round:radius=16")
        return RoundedCornersTransformer(radius: try p.pixels("radius") ?? 0)
    }

    /// `circle`: the centred square, masked to a circle.
    package static let circle = TransformerFactory(name: "circle") { values in
        _ = try SpecParameters(values, transform: "circle", known: [])
        return CircleTransformer()
    }

    /// `tint:color=#ff000080` (`#rrggbb` or `#rrggbbaa`; the alpha is the tint's strength).
    package static let tint = TransformerFactory(name: "tint") { values in
        let p = try SpecParameters(values, transform: "tint", known: ["color"])
        let text = try p.required("color", example: "tint:color=#ff000080")
        guard let tint = TintTransformer(hex: text) else {
            throw p.invalid("color", "must be #rrggbb or #rrggbbaa in hex, got '\(text)'")
        }
        return tint
    }

    /// `opacity:alpha=0.5` (0 invisible ... 1 unchanged).
    package static let opacity = TransformerFactory(name: "opacity") { values in
        let p = try SpecParameters(values, transform: "opacity", known: ["alpha"])
        _ = try p.required("alpha", example: "opacity:alpha=0.5")
        return OpacityTransformer(alpha: try p.number("alpha", in: 0...1) ?? 1)
    }
}
