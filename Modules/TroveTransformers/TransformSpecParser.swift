import TroveCore

/// Parses transform specs such as `resize:w=200,h=100,mode=fill|grayscale|blur:sigma=2`.
///
/// Grammar: transforms are separated by `|`; a transform's name and its parameters by the first `:`;
/// parameters by `,`; a parameter's key and value by the first `=`. Whitespace around every token is
/// ignored. Names use only `a-z`, `0-9`, `_` and `-`. Positions are offsets in characters, so an error
/// can point at the bad part of the spec.
package enum TransformSpecParser {
    /// The steps of `spec` in order. Throws `TroveError.invalidTransformSpec` with the character position of
    /// the first problem (an empty spec or step, a bad name, a parameter without `=`, a duplicate key, ...).
    /// Names and parameters are not checked against the registry here.
    package static func parse(_ spec: String) throws -> [TransformStep] {
        let chars = Array(spec)
        let whole = trimmed(0..<chars.count, in: chars)
        guard !whole.isEmpty else {
            throw invalid(spec, at: 0, "the spec is empty; write transforms like 'resize:w=200|grayscale'")
        }
        let segments = split(0..<chars.count, in: chars, on: "|")
        var steps: [TransformStep] = []
        steps.reserveCapacity(segments.count)
        for (index, segment) in segments.enumerated() {
            steps.append(try parseStep(segment, index: index, of: segments.count, chars: chars, spec: spec))
        }
        return steps
    }

    private static func parseStep(
        _ segment: Range<Int>, index: Int, of total: Int, chars: [Character],
        spec: String
    ) throws -> TransformStep {
        let body = trimmed(segment, in: chars)
        guard !body.isEmpty else {
            let where_ =
                index == 0 ? "before the first '|'" : index == total - 1 ? "after the last '|'" : "between '||'"
            throw invalid(spec, at: segment.lowerBound, "empty transform \(where_); remove the extra '|'")
        }
        let colon = chars[body].firstIndex(of: ":")
        let nameRange = trimmed(body.lowerBound..<(colon ?? body.upperBound), in: chars)
        guard !nameRange.isEmpty else {
            throw invalid(spec, at: body.lowerBound, "missing transform name before ':'")
        }
        let name = String(chars[nameRange])
        if let bad = chars[nameRange].firstIndex(where: { !isNameCharacter($0) }) {
            throw invalid(
                spec, at: bad,
                "transform name '\(name)' contains '\(chars[bad])'; names use only a-z, 0-9, '_' and '-'")
        }

        var parameters: [String: String] = [:]
        if let colon {
            for piece in split(colon + 1..<body.upperBound, in: chars, on: ",") {
                let parameter = trimmed(piece, in: chars)
                guard !parameter.isEmpty else {
                    throw invalid(
                        spec, at: piece.lowerBound,
                        "empty parameter in '\(name)' (a stray ',' or nothing after ':')")
                }
                let text = String(chars[parameter])
                guard let equals = chars[parameter].firstIndex(of: "=") else {
                    throw invalid(
                        spec, at: parameter.lowerBound,
                        "parameter '\(text)' of '\(name)' has no '='; write key=value")
                }
                let keyRange = trimmed(parameter.lowerBound..<equals, in: chars)
                guard !keyRange.isEmpty else {
                    throw invalid(spec, at: parameter.lowerBound, "parameter '\(text)' of '\(name)' has an empty key")
                }
                let key = String(chars[keyRange])
                let valueRange = trimmed(equals + 1..<parameter.upperBound, in: chars)
                guard !valueRange.isEmpty else {
                    throw invalid(spec, at: equals + 1, "parameter '\(key)' of '\(name)' has an empty value")
                }
                guard parameters[key] == nil else {
                    throw invalid(spec, at: keyRange.lowerBound, "duplicate parameter '\(key)' in '\(name)'")
                }
                parameters[key] = String(chars[valueRange])
            }
        }
        return TransformStep(name: name, parameters: parameters, position: nameRange.lowerBound)
    }

    private static func isNameCharacter(_ c: Character) -> Bool {
        // ASCII only: a Character such as "a" + combining accent must not pass as "a".
        guard let byte = c.asciiValue else { return false }
        return (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5F || byte == 0x2D
    }

    /// The sub-ranges of `range` between occurrences of `separator` (empty pieces included).
    private static func split(_ range: Range<Int>, in chars: [Character], on separator: Character) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        var start = range.lowerBound
        for i in range where chars[i] == separator {
            pieces.append(start..<i)
            start = i + 1
        }
        pieces.append(start..<range.upperBound)
        return pieces
    }

    /// `range` without leading and trailing whitespace.
    private static func trimmed(_ range: Range<Int>, in chars: [Character]) -> Range<Int> {
        var lower = range.lowerBound, upper = range.upperBound
        while lower < upper && chars[lower].isWhitespace { lower += 1 }
        while upper > lower && chars[upper - 1].isWhitespace { upper -= 1 }
        return lower..<upper
    }

    private static func invalid(_ spec: String, at position: Int, _ reason: String) -> TroveError {
        .invalidTransformSpec(spec: spec, position: position, reason: reason)
    }
}
