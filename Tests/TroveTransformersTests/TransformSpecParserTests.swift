import Testing
import TroveCore
import TroveTransformers

@Suite struct TransformSpecParserTests {
    @Test func parsesOneStepWithParameters() throws {
        let steps = try TransformSpecParser.parse("resize:w=200,h=100")
        #expect(steps == [TransformStep(name: "resize", parameters: ["w": "200", "h": "100"], position: 0)])
    }

    @Test func parsesAChainWithPositions() throws {
        let spec = "resize:w=200,h=100,mode=fill|grayscale|blur:sigma=2"
        let steps = try TransformSpecParser.parse(spec)
        #expect(
            steps == [
                TransformStep(name: "resize", parameters: ["w": "200", "h": "100", "mode": "fill"], position: 0),
                TransformStep(name: "grayscale", parameters: [:], position: 29),
                TransformStep(name: "blur", parameters: ["sigma": "2"], position: 39)
            ])
    }

    @Test func trimsWhitespaceAroundEveryToken() throws {
        let spec = "  resize : w = 200 ,\th=1 |  grayscale "
        let steps = try TransformSpecParser.parse(spec)
        #expect(
            steps == [
                TransformStep(name: "resize", parameters: ["w": "200", "h": "1"], position: 2),
                TransformStep(name: "grayscale", parameters: [:], position: offset(of: "grayscale", in: spec))
            ])
    }

    @Test func splitsNameAndValueAtTheFirstSeparatorOnly() throws {
        let steps = try TransformSpecParser.parse("text:s=a=b:c")
        #expect(steps == [TransformStep(name: "text", parameters: ["s": "a=b:c"], position: 0)])
    }

    @Test func acceptsDigitsUnderscoresAndDashesInNames() throws {
        let steps = try TransformSpecParser.parse("rotate-90|x_2")
        #expect(steps.map(\.name) == ["rotate-90", "x_2"])
        #expect(steps.map(\.position) == [0, 10])
    }

    @Test func positionsCountCharactersNotBytes() {
        // "é" is two UTF-8 bytes but one character: the bad parameter "x" starts at character 9.
        expectSpecError("tint:c=é,x", position: 9, mentions: ["'x'", "no '='"])
    }

    struct BadSpec: Sendable, CustomTestStringConvertible {
        let spec: String
        let position: Int
        let mentions: [String]
        var testDescription: String { "'\(spec)'" }
    }

    @Test(arguments: [
        BadSpec(spec: "", position: 0, mentions: ["empty"]),
        BadSpec(spec: "   ", position: 0, mentions: ["empty"]),
        BadSpec(spec: "resize||grayscale", position: 7, mentions: ["empty transform", "'||'"]),
        BadSpec(spec: "|resize", position: 0, mentions: ["empty transform", "first '|'"]),
        BadSpec(spec: "resize|", position: 7, mentions: ["empty transform", "last '|'"]),
        BadSpec(spec: ":w=1", position: 0, mentions: ["missing transform name"]),
        BadSpec(spec: "resize| :w=1", position: 8, mentions: ["missing transform name"]),
        BadSpec(spec: "resize:w200", position: 7, mentions: ["'w200'", "no '='", "'resize'"]),
        BadSpec(spec: "resize:w=1, h", position: 12, mentions: ["'h'", "no '='"]),
        BadSpec(spec: "resize:=200", position: 7, mentions: ["'=200'", "empty key"]),
        BadSpec(spec: "resize:w=", position: 9, mentions: ["'w'", "empty value"]),
        BadSpec(spec: "resize:w= ,h=2", position: 9, mentions: ["'w'", "empty value"]),
        BadSpec(spec: "resize:w=1,w=2", position: 11, mentions: ["duplicate parameter 'w'"]),
        BadSpec(spec: "resize:w=1, w =2", position: 12, mentions: ["duplicate parameter 'w'"]),
        BadSpec(spec: "Resize:w=1", position: 0, mentions: ["'Resize'", "'R'", "a-z"]),
        BadSpec(spec: "resize|gray scale", position: 11, mentions: ["'gray scale'", "' '"]),
        BadSpec(spec: "resize|blür", position: 9, mentions: ["'blür'", "'ü'"]),
        BadSpec(spec: "resize:w=1,,h=2", position: 11, mentions: ["empty parameter"]),
        BadSpec(spec: "resize:", position: 7, mentions: ["empty parameter"])
    ])
    func reportsTheBadPart(_ bad: BadSpec) {
        expectSpecError(bad.spec, position: bad.position, mentions: bad.mentions)
    }

    private func expectSpecError(
        _ spec: String, position: Int, mentions: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let steps = try TransformSpecParser.parse(spec)
            Issue.record("expected an error, got \(steps)", sourceLocation: sourceLocation)
        } catch let TroveError.invalidTransformSpec(errorSpec, errorPosition, reason) {
            #expect(errorSpec == spec, sourceLocation: sourceLocation)
            #expect(errorPosition == position, "reason: \(reason)", sourceLocation: sourceLocation)
            for fragment in mentions {
                #expect(
                    reason.contains(fragment), "'\(reason)' should mention \(fragment)",
                    sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("expected invalidTransformSpec, got \(error)", sourceLocation: sourceLocation)
        }
    }
}
