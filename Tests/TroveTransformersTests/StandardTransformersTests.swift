import Testing
import TroveCore
import TroveTransformers

@Suite struct StandardTransformersTests {
    private func make(_ parameters: [String: String]) throws -> any ImageTransformer {
        let factory = try #require(StandardTransformers.factories.first { $0.name == "resize" })
        return try factory.makeTransformer(parameters: parameters)
    }

    @Test func resizeFactoryReadsEveryParameter() throws {
        let built = try make(["w": "120", "h": "80", "mode": "fill", "filter": "lanczos3", "upscale": "true"])
        let resize = try #require(built as? ResizeTransformer)
        #expect(resize == ResizeTransformer(width: 120, height: 80, mode: .fill, filter: .lanczos3, upscale: true))
    }

    @Test func resizeFactoryDefaultsToFitBilinearWithoutUpscaling() throws {
        let resize = try #require(try make(["h": "40"]) as? ResizeTransformer)
        #expect(resize == ResizeTransformer(width: nil, height: 40, mode: .fit, filter: .bilinear, upscale: false))
    }

    struct BadParameters: Sendable, CustomTestStringConvertible {
        let parameters: [String: String]
        let parameter: String
        let mentions: [String]
        var testDescription: String { "\(parameters)" }
    }

    @Test(arguments: [
        BadParameters(parameters: ["w": "abc"], parameter: "w", mentions: ["positive integer", "'abc'"]),
        BadParameters(parameters: ["w": "12.5"], parameter: "w", mentions: ["positive integer", "'12.5'"]),
        BadParameters(parameters: ["w": "10", "h": "0"], parameter: "h", mentions: ["positive integer", "'0'"]),
        BadParameters(parameters: ["h": "-5"], parameter: "h", mentions: ["positive integer", "'-5'"]),
        BadParameters(parameters: ["w": "99999999999999999999"], parameter: "w", mentions: ["'99999999999999999999'"]),
        BadParameters(parameters: ["w": "2000000"], parameter: "w", mentions: ["at most 1048576"]),
        BadParameters(
            parameters: ["w": "10", "mode": "zoom"], parameter: "mode",
            mentions: ["'zoom'", "fit, fill, stretch"]),
        BadParameters(
            parameters: ["w": "10", "filter": "gauss"], parameter: "filter",
            mentions: ["'gauss'", "nearest, bilinear, bicubic, lanczos3"]),
        BadParameters(
            parameters: ["w": "10", "upscale": "maybe"], parameter: "upscale",
            mentions: ["'maybe'", "true or false"]),
        BadParameters(
            parameters: ["width": "10"], parameter: "width",
            mentions: ["not a resize parameter", "w, h, mode, filter, upscale"]),
        BadParameters(parameters: [:], parameter: "w", mentions: ["'h'", "give w, h or both"]),
        BadParameters(parameters: ["mode": "fill"], parameter: "w", mentions: ["give w, h or both"])
    ])
    func resizeFactoryRejectsBadParameters(_ bad: BadParameters) {
        #expect {
            try make(bad.parameters)
        } throws: { error in
            guard case let .invalidTransformParameter(transform, parameter, reason) = error as? TroveError else {
                return false
            }
            return transform == "resize" && parameter == bad.parameter && bad.mentions.allSatisfy(reason.contains)
        }
    }

    private func registry() throws -> PluginRegistry {
        var registry = PluginRegistry()
        for factory in StandardTransformers.factories { try registry.register(transformer: factory) }
        return registry
    }

    @Test func specBuildsWorkingTransformersInOrder() throws {
        let transformers = try registry().transformers(forSpec: "resize:w=4,h=2,mode=stretch | resize:w=2")
        #expect(
            transformers.map(\.identifier) == [
                "resize(w=4,h=2,mode=stretch,filter=bilinear,upscale=false)",
                "resize(w=2,h=auto,mode=fit,filter=bilinear,upscale=false)"
            ])
        var image = solidImage(width: 8, height: 4, [30, 60, 90, 255])
        for transformer in transformers { image = try transformer.transform(image) }
        #expect(image.width == 2 && image.height == 1)
        #expect(image.pixels == [30, 60, 90, 255, 30, 60, 90, 255])
    }

    @Test func unknownTransformBecomesASpecErrorAtItsStep() throws {
        let spec = "resize:w=4|sharpen:amount=2"
        let error = try specError(spec, registry: registry())
        #expect(error.position == 11)
        #expect(error.reason.contains("unknown transformer 'sharpen'"))
        #expect(
            error.reason.contains(
                "known: blur, circle, crop, flip, grayscale, opacity, orient, resize, rotate, round, tint"))
    }

    @Test func badParameterBecomesASpecErrorAtItsStep() throws {
        let spec = " resize:w=4 | resize:w=abc"
        let error = try specError(spec, registry: registry())
        #expect(error.position == 14)
        #expect(error.reason.contains("resize: parameter 'w'"))
        #expect(error.reason.contains("'abc'"))
    }

    @Test func emptyRegistrySaysNothingIsRegistered() throws {
        let error = try specError("resize:w=4", registry: PluginRegistry())
        #expect(error.position == 0)
        #expect(error.reason.contains("(none registered)"))
    }

    @Test func parseErrorsPassThrough() throws {
        #expect(
            throws: TroveError.invalidTransformSpec(
                spec: "resize:w=4||x", position: 11,
                reason: "empty transform between '||'; remove the extra '|'")
        ) {
            try registry().transformers(forSpec: "resize:w=4||x")
        }
    }

    private func specError(
        _ spec: String, registry: PluginRegistry,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (position: Int, reason: String) {
        do {
            let built = try registry.transformers(forSpec: spec)
            Issue.record("expected an error, built \(built.map(\.identifier))", sourceLocation: sourceLocation)
        } catch let TroveError.invalidTransformSpec(errorSpec, position, reason) {
            #expect(errorSpec == spec, sourceLocation: sourceLocation)
            return (position, reason)
        }
        throw TroveError.invalidConfiguration("no spec error for \(spec)")
    }
}
