import Foundation
import Trove

/// What one proxy URL asks for, read from its path: the source, the transforms, an explicit output
/// format and quality, and the key its result is cached under (everything after the signature).
struct ProxyPlan: Sendable {
    var source: URL
    var transforms: [any ImageTransformer]
    /// The format the URL names (`format`/`f`, `@ext`, `.ext`); nil leaves it to negotiation.
    var format: ImageFormat?
    /// 1...100, or nil for the encoder's default.
    var quality: Int?
    /// Identifies the result apart from the output format: the path after the signature.
    var resultKey: String
}
