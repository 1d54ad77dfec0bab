/// One step of image processing. Its `identifier` goes into the processed cache key, so two
/// transformers that would produce different pixels must never share an identifier.
public protocol ImageTransformer: Sendable {
    /// Stable across runs and versions, e.g. "resize(w=200,h=200,mode=fit,filter=bilinear)".
    var identifier: String { get }
    /// Returns the processed image, or throws a `TroveError` saying why it cannot make one.
    func transform(_ image: Image) throws -> Image
}

/// Builds a transformer from spec parameters (`resize:w=200,h=100` gives `["w": "200", "h": "100"]`).
public struct TransformerFactory: Sendable {
    /// The name transform specs use for it, e.g. "resize".
    public let name: String
    private let make: @Sendable ([String: String]) throws -> any ImageTransformer

    /// `make` throws `TroveError.invalidTransformParameter` for a parameter it cannot use.
    public init(name: String, make: @escaping @Sendable ([String: String]) throws -> any ImageTransformer) {
        self.name = name
        self.make = make
    }

    /// A transformer for these spec parameters; throws `TroveError.invalidTransformParameter` for one it cannot use.
    package func makeTransformer(parameters: [String: String]) throws -> any ImageTransformer {
        try make(parameters)
    }
}

/// One parsed step of a transform spec: a name, its parameters, and where it starts in the spec.
package struct TransformStep: Sendable, Equatable {
    /// The transformer's name, e.g. "resize".
    package var name: String
    /// Its `key=value` parameters, e.g. `["w": "200"]`; empty when the step has none.
    package var parameters: [String: String]
    /// Offset (in characters) of this step within the spec string, for error messages.
    package var position: Int

    /// A step; `position` is 0 unless a parser says where the step starts.
    package init(name: String, parameters: [String: String] = [:], position: Int = 0) {
        self.name = name
        self.parameters = parameters
        self.position = position
    }
}
