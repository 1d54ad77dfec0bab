import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `trove serve` as a process: SIGTERM while requests are in flight lets every one of them finish, a large
/// answer still being written to a slow reader included, and the process exits 0.
@Suite struct ServeCommandShutdownTests {
    /// SIGTERM while a 6 MB hit is being written to a client that reads slowly: the drain closes the
    /// connection only after the answer's last byte (it used to close it as idle and cut the body).
    @Test func sigtermDuringALargeHitStillDeliversTheWholeBody() async throws {
        let origin = FixtureServer()
        origin.setRoute("/large.png", .file(LargeResult.png, contentType: "image/png"))
        try await origin.start()
        defer { Task { await origin.stop() } }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-serve-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let signer = URLSigner.test
        let process = try ServeProcess.launch([
            "serve", "--port", "0", "--cache-dir", cache.path, "--allow-loopback-sources",
            "--key", signer.key, "--salt", signer.salt, "--health-grace", "0", "--log-level", "warning"
        ])
        let port = try await process.port()
        let path = signer.signed("/raw:1/plain/\(origin.url("/large.png"))")
        let first = try await TestClient.withClient(host: "127.0.0.1", port: port) { try await $0.get(path) }
        #expect(first.status == .ok && first.body?.readableBytes == LargeResult.png.count)

        let connection = try RawConnection(port: port, receiveBuffer: 4096)
        try connection.send("GET \(path) HTTP/1.1\r\nHost: trove.test\r\n\r\n")
        var start = await connection.readSlowly(bytesPerSecond: 100 << 10, for: .milliseconds(500))
        process.signal(SIGTERM)
        start += await connection.readSlowly(bytesPerSecond: 100 << 10, for: .seconds(1))
        let answer = try await connection.readAnswer(startingWith: start, within: .seconds(60))
        #expect(answer.body.count == LargeResult.png.count && Data(answer.body) == LargeResult.png)
        #expect(await process.exitStatus() == 0)
    }

    @Test func sigtermDuringLoadFinishesInFlightRequestsAndExitsZero() async throws {
        let png = try Data(contentsOf: TestImages.folder.appendingPathComponent("chelsea.png"))
        let origin = FixtureServer()
        let count = 6
        for index in 0..<count {
            origin.setRoute("/slow/\(index).png", .delayed(png, contentType: "image/png", delay: .milliseconds(1500)))
        }
        try await origin.start()
        defer { Task { await origin.stop() } }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-serve-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }

        let signer = URLSigner.test
        let process = try ServeProcess.launch([
            "serve", "--port", "0", "--cache-dir", cache.path, "--allow-loopback-sources",
            "--key", signer.key, "--salt", signer.salt, "--max-concurrency", "8", "--log-level", "warning"
        ])
        let port = try await process.port()

        let responses = Task {
            try await withThrowingTaskGroup(of: (HTTPResponse.Status, Int).self) { group in
                for index in 0..<count {
                    let path = signer.signed(
                        "/rs:fit:40:40/plain/\(origin.url("/slow/\(index).png").absoluteString)@png")
                    group.addTask {
                        let response = try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
                            try await client.get(path)
                        }
                        return (response.status, response.body?.readableBytes ?? 0)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Every request has reached the origin (so each is in flight at the proxy) before the signal.
        while origin.requests.count < count { try await Task.sleep(for: .milliseconds(20)) }
        process.signal(SIGTERM)
        let answered = try await responses.value
        #expect(answered.count == count)
        #expect(answered.allSatisfy { $0.0 == .ok && $0.1 > 0 })
        #expect(await process.exitStatus() == 0)
    }
}

/// A `trove` child process whose stdout is read line by line off the cooperative pool.
final class ServeProcess: Sendable {
    private let process: Process
    private let lines: AsyncStream<String>

    /// `trove` sits next to the test bundle in the build products folder.
    static let binary: URL = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("trove")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/trove")
    }()

    private init(process: Process, lines: AsyncStream<String>) {
        self.process = process
        self.lines = lines
    }

    /// Runs `trove` with `arguments`; its standard error goes to the file `standardError` (made anew)
    /// when one is given, else nowhere.
    static func launch(_ arguments: [String], standardError: URL? = nil) throws -> ServeProcess {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        if let standardError {
            _ = FileManager.default.createFile(atPath: standardError.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: standardError)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        let (lines, continuation) = AsyncStream<String>.makeStream()
        try process.run()
        DispatchQueue.global().async {
            var pending = Data()
            while true {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            continuation.finish()
        }
        return ServeProcess(process: process, lines: lines)
    }

    /// The port from the `listening on http://HOST:PORT` line.
    func port() async throws -> Int {
        for await line in lines where line.hasPrefix("listening on ") {
            if let port = line.split(separator: ":").last.flatMap({ Int($0) }) { return port }
        }
        throw CancellationError()
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to end, off the cooperative pool.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.process.waitUntilExit()
                continuation.resume(returning: self.process.terminationStatus)
            }
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
