import TroveCore

/// One transform's spec parameters, read and checked with messages that name the parameter, what was
/// wrong and what is accepted. Every factory in `StandardTransformers` reads its parameters this way.
struct SpecParameters {
    let transform: String
    private let values: [String: String]

    /// Rejects any key outside `known`, listing the valid ones.
    init(_ values: [String: String], transform: String, known: [String]) throws {
        self.transform = transform
        self.values = values
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            let valid = known.isEmpty ? "it takes no parameters" : "valid: \(known.joined(separator: ", "))"
            throw TroveError.invalidTransformParameter(
                transform: transform, parameter: unknown, reason: "is not a \(transform) parameter; \(valid)")
        }
    }

    func has(_ key: String) -> Bool { values[key] != nil }

    /// A whole number of pixels in `1...maximum`, or nil when absent.
    func pixels(_ key: String, maximum: Int = ResizeTransformer.maximumDimension, allowZero: Bool = false) throws
        -> Int?
    {
        guard let text = values[key] else { return nil }
        guard let value = Int(text), allowZero ? value >= 0 : value > 0 else {
            let kind = allowZero ? "a non-negative integer" : "a positive integer"
            throw invalid(key, "must be \(kind) (pixels), got '\(text)'")
        }
        guard value <= maximum else {
            throw invalid(key, "must be at most \(maximum) pixels, got '\(text)'")
        }
        return value
    }

    /// A finite number in `range`, or nil when absent.
    func number(_ key: String, in range: ClosedRange<Double>, lowerBoundExcluded: Bool = false) throws -> Double? {
        guard let text = values[key] else { return nil }
        let bounds =
            lowerBoundExcluded
            ? "greater than \(range.lowerBound) and at most \(range.upperBound)"
            : "from \(range.lowerBound) to \(range.upperBound)"
        guard let value = Double(text), value.isFinite, range.contains(value),
            !(lowerBoundExcluded && value == range.lowerBound)
        else {
            throw invalid(key, "must be a number \(bounds), got '\(text)'")
        }
        return value
    }

    /// One of a fixed set of named values, or `fallback` when absent.
    func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, default fallback: Choice) throws -> Choice
    where Choice.RawValue == String {
        guard let text = values[key] else { return fallback }
        guard let value = Choice(rawValue: text) else {
            let valid = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw invalid(key, "must be one of \(valid), got '\(text)'")
        }
        return value
    }

    /// true/yes/1 or false/no/0 (any case); false when absent.
    func flag(_ key: String) throws -> Bool {
        guard let text = values[key] else { return false }
        switch text.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw invalid(key, "must be true or false, got '\(text)'")
        }
    }

    /// The raw text of a parameter that must be present.
    func required(_ key: String, example: String) throws -> String {
        guard let text = values[key] else { throw invalid(key, "is required (e.g. \(example))") }
        return text
    }

    func invalid(_ parameter: String, _ reason: String) -> TroveError {
        .invalidTransformParameter(transform: transform, parameter: parameter, reason: reason)
    }
}
