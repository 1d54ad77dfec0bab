import Crypto
import Foundation

/// Signs paths as imgproxy does, computed here independently of TroveImgproxy:
/// base64url(HMAC-SHA256(key, salt + path)) without padding, key and salt given in hex.
struct URLSigner {
    let key: String
    let salt: String

    static let test = URLSigner(
        key: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
        salt: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")

    /// `/SIGNATURE` + path.
    func signed(_ path: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Self.bytes(hex: salt) + Array(path.utf8),
            using: SymmetricKey(data: Self.bytes(hex: key)))
        let signature = Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "/" + signature + path
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
