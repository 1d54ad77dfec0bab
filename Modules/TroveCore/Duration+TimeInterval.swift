import Foundation

extension Duration {
    /// The duration in seconds as a `TimeInterval`, for arithmetic with `Date`.
    package var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
