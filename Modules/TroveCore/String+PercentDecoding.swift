import Foundation

extension StringProtocol {
    /// `removingPercentEncoding`, with text that has no '%' (most URLs and paths) returned as it is instead of
    /// going through Foundation's string bridging, which costs a few microseconds a request. nil for an
    /// escape that is not two hex digits or bytes that are not UTF-8, as Foundation answers.
    @inlinable package var percentDecoded: String? {
        guard utf8.contains(UInt8(ascii: "%")) else { return String(self) }
        return removingPercentEncoding
    }
}
