import Logging
import TroveMemoryCache

/// The polling task behind `MemoryPressureOptions`: asks the source every interval and trims the memory
/// cache to the low-water mark on pressure. Owned by a pipeline; the task ends when the watch does.
package final class MemoryPressureWatch: Sendable {
    private let task: Task<Void, Never>
    private let check: @Sendable () -> Int?

    /// Starts polling `options`' source for `cache`, telling `activity` of each trim; nil when there is
    /// nothing to watch.
    init?<Value: Sendable>(
        _ options: MemoryPressureOptions, cache: MemoryCache<String, Value>, logger: Logger, activity: ActivityHub
    ) {
        guard let source = options.resolvedSource() else { return nil }
        let fraction = min(max(options.lowWaterFraction, 0), 1)
        let check: @Sendable () -> Int? = {
            guard let pressure = source.currentPressure() else { return nil }
            let removed = cache.trim(toFraction: fraction)
            logger.notice(
                "memory pressure: trimmed the memory cache",
                metadata: ["reason": "\(pressure.reason)", "removed": "\(removed)", "lowWater": "\(fraction)"])
            activity.send { .trimmedMemory(reason: pressure.reason, removed: removed) }
            return removed
        }
        self.check = check
        let interval = options.pollInterval
        task = Task.detached(priority: .utility) {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                _ = check()
            }
        }
    }

    /// One poll now: the number of entries trimmed, or nil when the source saw no pressure.
    @discardableResult
    package func poll() -> Int? { check() }

    deinit { task.cancel() }
}
