import Foundation
import Synchronization

/// A DateFormatter behind a lock: formatters are expensive to make and unsafe to share unguarded.
final class LockedFormatter: Sendable {
    // DateFormatter is not Sendable; the Mutex is the only way to reach it.
    private let formatter: Mutex<DateFormatter>

    init(_ formatter: sending DateFormatter) {
        self.formatter = Mutex(formatter)
    }

    func withLock<T: Sendable>(_ body: (DateFormatter) -> T) -> T {
        formatter.withLock { body($0) }
    }
}
