import ArgumentParser
import Trove

/// `--priority`: where a request's fetch queues while it waits for a slot of the scheduler.
enum PriorityArgument: String, ExpressibleByArgument, CaseIterable {
    case veryLow = "very-low"
    case low
    case normal
    case high
    case veryHigh = "very-high"

    var requestPriority: RequestPriority {
        switch self {
        case .veryLow: .veryLow
        case .low: .low
        case .normal: .normal
        case .high: .high
        case .veryHigh: .veryHigh
        }
    }
}
