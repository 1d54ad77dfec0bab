import Foundation

/// The memory a Linux container (cgroup) may use, when that is set: `memory.max` under cgroup v2, or
/// `memory.limit_in_bytes` under v1, for the cgroup this process belongs to. A process in a 512 MiB
/// container on a 24 GiB host should size its caches for 512 MiB.
package enum ContainerMemoryLimit {
    /// The limit in bytes, or nil when there is none (or no cgroup file system, as on Apple platforms).
    /// `root` and `membership` are where the cgroup file system and `/proc/self/cgroup` are; tests pass others.
    package static func bytes(root: String = "/sys/fs/cgroup", membership: String = "/proc/self/cgroup") -> Int? {
        let lines = ((try? String(contentsOfFile: membership, encoding: .utf8)) ?? "").split(separator: "\n")
        var candidates: [String] = []
        for line in lines {
            // "0::/path" (v2) or "4:memory:/path" (v1).
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let path = parts[2] == "/" ? "" : String(parts[2])
            if parts[0] == "0" && parts[1].isEmpty {
                candidates += [root + path + "/memory.max", root + "/memory.max"]
            } else if parts[1].split(separator: ",").contains("memory") {
                candidates += [
                    root + "/memory" + path + "/memory.limit_in_bytes", root + "/memory/memory.limit_in_bytes"
                ]
            }
        }
        for file in candidates {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            // "max" (v2) or a huge page-rounded number (v1) mean no limit.
            guard let limit = Int(value), limit > 0, limit < Int(ProcessInfo.processInfo.physicalMemory) else {
                return nil
            }
            return limit
        }
        return nil
    }
}
