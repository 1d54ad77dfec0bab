import TroveCore

/// The transformer factories this module provides, for registering in a `PluginRegistry`.
public enum StandardTransformers {
    public static let factories: [TransformerFactory] = [resize]

    /// `resize:w=200,h=100,mode=fill,filter=lanczos3,upscale=true`; give w, h or both.
    public static let resize = TransformerFactory(name: "resize") { parameters in
        try ResizeParameters(parameters).transformer
    }
}

/// Reads and checks the spec parameters of "resize".
private struct ResizeParameters {
    static let transform = "resize"
    static let known = ["w", "h", "mode", "filter", "upscale"]

    let transformer: ResizeTransformer

    init(_ parameters: [String: String]) throws {
        if let unknown = parameters.keys.sorted().first(where: { !Self.known.contains($0) }) {
            throw Self.invalid(unknown, "is not a resize parameter; valid: \(Self.known.joined(separator: ", "))")
        }
        let width = try Self.size(parameters, "w")
        let height = try Self.size(parameters, "h")
        guard width != nil || height != nil else {
            throw Self.invalid("w", "or 'h' is required; give w, h or both (e.g. resize:w=200)")
        }
        let mode = try Self.choice(parameters, "mode", default: ResizeTransformer.Mode.fit)
        let filter = try Self.choice(parameters, "filter", default: ResizeTransformer.Filter.bilinear)
        let upscale = try Self.flag(parameters, "upscale")
        transformer = ResizeTransformer(width: width, height: height, mode: mode, filter: filter, upscale: upscale)
    }

    private static func size(_ parameters: [String: String], _ key: String) throws -> Int? {
        guard let text = parameters[key] else { return nil }
        guard let value = Int(text), value > 0 else {
            throw invalid(key, "must be a positive integer (pixels), got '\(text)'")
        }
        guard value <= ResizeTransformer.maximumDimension else {
            throw invalid(key, "must be at most \(ResizeTransformer.maximumDimension) pixels, got '\(text)'")
        }
        return value
    }

    private static func choice<Choice: RawRepresentable & CaseIterable>(
        _ parameters: [String: String], _ key: String, default fallback: Choice
    ) throws -> Choice where Choice.RawValue == String {
        guard let text = parameters[key] else { return fallback }
        guard let value = Choice(rawValue: text) else {
            let valid = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw invalid(key, "must be one of \(valid), got '\(text)'")
        }
        return value
    }

    private static func flag(_ parameters: [String: String], _ key: String) throws -> Bool {
        guard let text = parameters[key] else { return false }
        switch text.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw invalid(key, "must be true or false, got '\(text)'")
        }
    }

    private static func invalid(_ parameter: String, _ reason: String) -> TroveError {
        .invalidTransformParameter(transform: transform, parameter: parameter, reason: reason)
    }
}
