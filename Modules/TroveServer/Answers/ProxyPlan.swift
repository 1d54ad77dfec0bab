import Foundation
import Trove
import TroveImgproxy

/// What one proxy URL asks for, read from its path, and the keys its result is known by: apart from the
/// output format, the path after the signature (`resultKey`, shared by every signature of that path), and
/// in the result cache, the path as verified (`resultPath`).
struct ProxyPlan: Sendable {
    let url: ImgproxyURL
    let resultKey: String
    /// `ImgproxyRoute.resultPath(forPath:)` of the path the signature was checked on.
    let resultPath: String

    var source: URL { url.source }
    /// The format the URL names (`format`/`f`, `@ext`, `.ext`); nil leaves it to negotiation.
    var format: ImageFormat? { url.format }
}
