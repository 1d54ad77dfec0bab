import Foundation
import Testing
import TroveMemoryCache

/// The container limit is read from a cgroup tree laid out as the kernel lays it out, here in a temporary folder.
@Suite struct ContainerMemoryLimitTests {
    func tree(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-\(UUID().uuidString)")
        for (path, contents) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func cgroupV2ReadsMemoryMaxOfTheProcessesGroup() throws {
        let root = try tree(["proc": "0::/app.slice/web\n", "fs/app.slice/web/memory.max": "536870912\n"])
        defer { try? FileManager.default.removeItem(at: root) }
        let limit = ContainerMemoryLimit.bytes(
            root: root.appendingPathComponent("fs").path,
            membership: root.appendingPathComponent("proc").path)
        #expect(limit == 512 << 20)
    }

    @Test func cgroupV1ReadsTheMemoryControllersLimit() throws {
        let root = try tree([
            "proc": "5:cpu,cpuacct:/\n4:memory:/docker/abc\n",
            "fs/memory/docker/abc/memory.limit_in_bytes": "268435456"
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(
            ContainerMemoryLimit.bytes(
                root: root.appendingPathComponent("fs").path,
                membership: root.appendingPathComponent("proc").path) == 256 << 20)
    }

    @Test func noLimitIsNil() throws {
        let root = try tree([
            "proc": "0::/\n", "fs/memory.max": "max\n",
            "proc1": "4:memory:/\n", "fs/memory/memory.limit_in_bytes": "9223372036854771712\n"
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let fs = root.appendingPathComponent("fs").path
        #expect(ContainerMemoryLimit.bytes(root: fs, membership: root.appendingPathComponent("proc").path) == nil)
        #expect(ContainerMemoryLimit.bytes(root: fs, membership: root.appendingPathComponent("proc1").path) == nil)
        #expect(ContainerMemoryLimit.bytes(root: fs, membership: root.appendingPathComponent("missing").path) == nil)
    }
}
