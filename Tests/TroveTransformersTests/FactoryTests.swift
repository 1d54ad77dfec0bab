import Testing
import TroveCore
import TroveTransformers

/// The spec factories of every transform but resize (StandardTransformersTests covers resize).
@Suite struct FactoryTests {
    private func registry() throws -> PluginRegistry {
        var registry = PluginRegistry()
        for factory in StandardTransformers.factories { try registry.register(transformer: factory) }
        return registry
    }

    @Test func everySpecBuildsTheTransformerItNames() throws {
        let spec =
            "crop:x=1,y=2,w=30,h=40|crop:w=5,h=6,gravity=southwest|crop:w=7,h=8|rotate:deg=270|flip:axis=v"
            + "|orient|grayscale|blur:sigma=1.5|round:radius=8|circle|tint:color=#FF8800|opacity:alpha=.25"
        let identifiers = try registry().transformers(forSpec: spec).map(\.identifier)
        #expect(
            identifiers == [
                "crop(x=1,y=2,w=30,h=40)", "crop(w=5,h=6,gravity=southwest)", "crop(w=7,h=8,gravity=center)",
                "rotate(deg=270)", "flip(axis=v)", "orient", "grayscale", "blur(sigma=1.5)", "round(radius=8)",
                "circle",
                "tint(color=#ff8800ff)", "opacity(alpha=0.25)"
            ])
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let spec: String
        let parameter: String
        let mentions: [String]
        var testDescription: String { spec }
    }

    @Test(arguments: [
        Bad(spec: "crop:w=10", parameter: "h", mentions: ["is required"]),
        Bad(spec: "crop:h=10", parameter: "w", mentions: ["is required"]),
        Bad(spec: "crop:x=1,w=10,h=10", parameter: "y", mentions: ["required with 'x'"]),
        Bad(spec: "crop:y=1,w=10,h=10", parameter: "x", mentions: ["required with 'y'"]),
        Bad(spec: "crop:x=-1,y=0,w=10,h=10", parameter: "x", mentions: ["non-negative integer", "'-1'"]),
        Bad(spec: "crop:x=1,y=1,w=10,h=10,gravity=north", parameter: "gravity", mentions: ["cannot be combined"]),
        Bad(spec: "crop:w=10,h=10,gravity=up", parameter: "gravity", mentions: ["'up'", "center, north"]),
        Bad(spec: "crop:w=0,h=10", parameter: "w", mentions: ["positive integer"]),
        Bad(spec: "rotate:deg=45", parameter: "deg", mentions: ["90, 180 or 270", "'45'"]),
        Bad(spec: "rotate", parameter: "deg", mentions: ["is required", "rotate:deg=90"]),
        Bad(spec: "flip:axis=x", parameter: "axis", mentions: ["h, v", "'x'"]),
        Bad(spec: "flip", parameter: "axis", mentions: ["is required"]),
        Bad(spec: "orient:deg=90", parameter: "deg", mentions: ["not a orient parameter", "takes no parameters"]),
        Bad(spec: "grayscale:amount=1", parameter: "amount", mentions: ["takes no parameters"]),
        Bad(spec: "blur:sigma=0", parameter: "sigma", mentions: ["greater than 0.0", "'0'"]),
        Bad(spec: "blur:sigma=nan", parameter: "sigma", mentions: ["'nan'"]),
        Bad(spec: "blur:sigma=300", parameter: "sigma", mentions: ["at most 250.0"]),
        Bad(spec: "blur:radius=2", parameter: "radius", mentions: ["valid: sigma"]),
        Bad(spec: "round:radius=-3", parameter: "radius", mentions: ["positive integer"]),
        Bad(spec: "circle:r=3", parameter: "r", mentions: ["takes no parameters"]),
        Bad(spec: "tint:color=red", parameter: "color", mentions: ["#rrggbb", "'red'"]),
        Bad(spec: "tint", parameter: "color", mentions: ["is required"]),
        Bad(spec: "opacity:alpha=1.5", parameter: "alpha", mentions: ["from 0.0 to 1.0", "'1.5'"]),
        Bad(spec: "opacity:alpha=half", parameter: "alpha", mentions: ["'half'"])
    ])
    func badParametersBecomeSpecErrorsNamingThem(_ bad: Bad) throws {
        let registry = try registry()
        #expect {
            try registry.transformers(forSpec: "resize:w=10|" + bad.spec)
        } throws: { error in
            guard case let .invalidTransformSpec(_, position, reason) = error as? TroveError else { return false }
            return position == 12 && reason.contains("parameter '\(bad.parameter)'")
                && bad.mentions.allSatisfy(reason.contains)
        }
    }
}
