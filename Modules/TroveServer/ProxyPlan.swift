import Foundation
import Trove
import TroveImgproxy

/// What one proxy URL asks for, read from its path, and the key its result is known by apart from the
/// output format: the path after the signature.
struct ProxyPlan: Sendable {
    let url: ImgproxyURL
    let resultKey: String

    var source: URL { url.source }
    /// The format the URL names (`format`/`f`, `@ext`, `.ext`); nil leaves it to negotiation.
    var format: ImageFormat? { url.format }
}
