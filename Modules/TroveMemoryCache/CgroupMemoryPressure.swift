import Foundation
import Synchronization

/// Memory pressure as Linux reports it for this process's cgroup (v2), polled:
///
/// - `memory.events`: the `high` count (the cgroup went over `memory.high` and was throttled) or the `max`
///   count (it hit `memory.max`; reclaim or the OOM killer comes next) rose since the previous poll;
/// - `memory.pressure` (PSI): tasks stalled waiting for memory for more than `stallThreshold` percent of
///   the last 10 seconds (`some avg10`);
/// - the process's resident memory passed `residentFraction` of the container's limit
///   (`ContainerMemoryLimit`).
///
/// Where the files are missing (cgroup v1, Apple platforms) those signals say nothing; `isAvailable` is
/// false when no signal can work, and a pipeline then starts no polling.
package final class CgroupMemoryPressure: MemoryPressureSource {
    private let directory: String?
    private let stallThreshold: Double?
    private let residentLimit: Int?
    private let limit: Int?
    private let resident: @Sendable () -> Int?
    /// `memory.events` counts at the previous poll; nil before the first.
    private let lastEvents = Mutex<[String: Int]?>(nil)

    /// Reads the cgroup of this process. `residentFraction` (0...1) of the container's memory limit is where
    /// resident memory counts as pressure; nil turns that signal off, as does a process with no limit.
    /// `stallThreshold` is the PSI `some avg10` percentage that counts; nil turns that signal off.
    package convenience init(residentFraction: Double? = 0.9, stallThreshold: Double? = 10) {
        self.init(
            residentFraction: residentFraction, stallThreshold: stallThreshold, root: "/sys/fs/cgroup",
            membership: "/proc/self/cgroup", limit: ContainerMemoryLimit.bytes(),
            resident: { CgroupMemoryPressure.residentBytes() })
    }

    /// As `init(residentFraction:stallThreshold:)`, with where the cgroup file system and `/proc/self/cgroup`
    /// are, the container's limit and the resident-memory reading given: tests pass their own.
    package init(
        residentFraction: Double? = 0.9, stallThreshold: Double? = 10, root: String = "/sys/fs/cgroup",
        membership: String = "/proc/self/cgroup", limit: Int?, resident: @escaping @Sendable () -> Int? = { nil }
    ) {
        directory = Self.cgroupDirectory(root: root, membership: membership)
        self.stallThreshold = stallThreshold
        self.limit = limit
        if let residentFraction, let limit, residentFraction > 0 {
            residentLimit = Int(Double(limit) * min(residentFraction, 1))
        } else {
            residentLimit = nil
        }
        self.resident = resident
        _ = eventCounts().map { counts in lastEvents.withLock { $0 = counts } }
    }

    /// Whether any signal can ever fire here: a cgroup v2 directory to read, or a limit to compare with.
    package var isAvailable: Bool { directory != nil || residentLimit != nil }

    /// The first signal that holds now, in the order above; nil when none does.
    package func currentPressure() -> MemoryPressure? {
        if let counts = eventCounts() {
            let previous = lastEvents.withLock { last in
                defer { last = counts }
                return last
            }
            if let previous {
                for name in ["max", "high"] where (counts[name] ?? 0) > (previous[name] ?? 0) {
                    return MemoryPressure(
                        reason: "memory.events \(name) rose from \(previous[name] ?? 0) to \(counts[name] ?? 0)")
                }
            }
        }
        if let stallThreshold, let stall = stalledPercent(), stall > stallThreshold {
            return MemoryPressure(reason: "memory.pressure some avg10=\(stall), over \(stallThreshold)")
        }
        if let residentLimit, let limit, let bytes = resident(), bytes > residentLimit {
            return MemoryPressure(reason: "resident \(bytes) bytes, over \(residentLimit) of a \(limit)-byte limit")
        }
        return nil
    }

    /// The counts in `memory.events` (`low`, `high`, `max`, `oom`, `oom_kill`); nil when it cannot be read.
    private func eventCounts() -> [String: Int]? {
        guard let directory, let text = try? String(contentsOfFile: directory + "/memory.events", encoding: .utf8)
        else { return nil }
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = Int(fields[1]) { counts[String(fields[0])] = value }
        }
        return counts
    }

    /// `avg10` of the `some` line of `memory.pressure`; nil when it cannot be read.
    private func stalledPercent() -> Double? {
        guard let directory, let text = try? String(contentsOfFile: directory + "/memory.pressure", encoding: .utf8)
        else { return nil }
        guard let some = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }) else { return nil }
        let field = some.split(separator: " ").first { $0.hasPrefix("avg10=") }
        return field.flatMap { Double($0.dropFirst("avg10=".count)) }
    }

    /// This process's cgroup v2 directory (`0::/path` in `/proc/self/cgroup`), when it has `memory.events`.
    static func cgroupDirectory(root: String, membership: String) -> String? {
        let lines = ((try? String(contentsOfFile: membership, encoding: .utf8)) ?? "").split(separator: "\n")
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "0", parts[1].isEmpty else { continue }
            let path = parts[2] == "/" ? "" : String(parts[2])
            for candidate in [root + path, root]
            where FileManager.default.fileExists(atPath: candidate + "/memory.events") {
                return candidate
            }
        }
        return nil
    }

    /// Resident memory of this process in bytes, from `/proc/self/statm`; nil where there is none.
    package static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
