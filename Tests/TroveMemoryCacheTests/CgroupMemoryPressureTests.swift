import Foundation
import Testing
import TroveMemoryCache
import TroveTestSupport

/// `CgroupMemoryPressure` on a cgroup file system laid out in a temporary directory, as the kernel writes it.
@Suite struct CgroupMemoryPressureTests {
    /// A cgroup v2 tree with this process in `/app`, and the files of `/app`.
    func cgroup(in directory: URL, events: String, pressure: String) throws -> (root: String, membership: String) {
        let app = directory.appendingPathComponent("app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try Data(events.utf8).write(to: app.appendingPathComponent("memory.events"))
        try Data(pressure.utf8).write(to: app.appendingPathComponent("memory.pressure"))
        let membership = directory.appendingPathComponent("cgroup")
        try Data("0::/app\n".utf8).write(to: membership)
        return (directory.path, membership.path)
    }

    func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = try temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        try body(directory)
    }

    static let calm = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"

    @Test func risingHighOrMaxCountsArePressureOncePerRise() throws {
        try withDirectory { directory in
            let (root, membership) = try cgroup(
                in: directory, events: "low 0\nhigh 3\nmax 0\noom 0\noom_kill 0\n", pressure: Self.calm)
            let source = CgroupMemoryPressure(
                residentFraction: nil, root: root, membership: membership, limit: nil, resident: { nil })
            #expect(source.isAvailable)
            // Counts already there when watching starts are history, not pressure.
            #expect(source.currentPressure() == nil)
            let events = directory.appendingPathComponent("app/memory.events")
            try Data("low 9\nhigh 5\nmax 0\noom 0\noom_kill 0\n".utf8).write(to: events)
            #expect(source.currentPressure()?.reason == "memory.events high rose from 3 to 5")
            // Unchanged since the last poll: no pressure, even though `low` rose before.
            #expect(source.currentPressure() == nil)
            try Data("low 9\nhigh 6\nmax 1\noom 0\noom_kill 0\n".utf8).write(to: events)
            #expect(source.currentPressure()?.reason == "memory.events max rose from 0 to 1")
        }
    }

    @Test func aStallOverTheThresholdIsPressure() throws {
        try withDirectory { directory in
            let (root, membership) = try cgroup(in: directory, events: "high 0\nmax 0\n", pressure: Self.calm)
            let source = CgroupMemoryPressure(
                residentFraction: nil, stallThreshold: 10, root: root, membership: membership, limit: nil,
                resident: { nil })
            #expect(source.currentPressure() == nil)
            try Data(
                "some avg10=25.50 avg60=3.00 avg300=1.00 total=123\nfull avg10=2.00 avg60=0 avg300=0 total=9\n".utf8
            )
            .write(to: directory.appendingPathComponent("app/memory.pressure"))
            #expect(source.currentPressure()?.reason == "memory.pressure some avg10=25.5, over 10.0")
        }
    }

    @Test func residentMemoryPastTheFractionOfTheLimitIsPressure() {
        let resident = ResidentReading(800)
        let source = CgroupMemoryPressure(
            residentFraction: 0.9, stallThreshold: nil, root: "/nonexistent", membership: "/nonexistent",
            limit: 1000, resident: { resident.value })
        #expect(source.isAvailable)
        #expect(source.currentPressure() == nil)
        resident.value = 950
        #expect(source.currentPressure()?.reason == "resident 950 bytes, over 900 of a 1000-byte limit")
        // No limit, no cgroup: nothing can fire, and a pipeline starts no polling.
        let nothing = CgroupMemoryPressure(root: "/nonexistent", membership: "/nonexistent", limit: nil)
        #expect(!nothing.isAvailable && nothing.currentPressure() == nil)
    }

    @Test func thisProcessHasAResidentSize() {
        #if os(Linux)
            #expect((CgroupMemoryPressure.residentBytes() ?? 0) > 1 << 20)
        #endif
    }
}

/// A resident-memory reading a test sets.
final class ResidentReading: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: Int

    init(_ bytes: Int) { self.bytes = bytes }

    var value: Int {
        get { lock.withLock { bytes } }
        set { lock.withLock { bytes = newValue } }
    }
}
