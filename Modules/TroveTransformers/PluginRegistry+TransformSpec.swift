import TroveCore

extension PluginRegistry {
    /// Builds the transformers a spec such as `resize:w=200|grayscale` names, in order.
    ///
    /// A parse error, an unknown transform name or a bad parameter all throw
    /// `TroveError.invalidTransformSpec` at the offending step's position, with the original message
    /// as the reason, so a user sees which part of the spec to fix.
    public func transformers(forSpec spec: String) throws -> [any ImageTransformer] {
        try TransformSpecParser.parse(spec).map { step in
            do {
                return try transformer(named: step.name, parameters: step.parameters)
            } catch let error as TroveError {
                switch error {
                case .invalidTransformParameter, .unknownPlugin:
                    throw TroveError.invalidTransformSpec(
                        spec: spec, position: step.position,
                        reason: error.description)
                default:
                    throw error
                }
            }
        }
    }
}
