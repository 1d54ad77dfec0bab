import Foundation
import Synchronization

/// The `Date` header for answers sent without Hummingbird (which adds its own): the current second's
/// HTTP date, formatted once a second however many answers carry it.
final class ResponseDate: Sendable {
    private let current = Mutex<(second: Int, text: String)>((-1, ""))

    var text: String {
        let now = Int(time(nil))
        return current.withLock { current in
            if current.second != now {
                current = (now, HTTPDateText.format(Date(timeIntervalSince1970: Double(now))))
            }
            return current.text
        }
    }
}
