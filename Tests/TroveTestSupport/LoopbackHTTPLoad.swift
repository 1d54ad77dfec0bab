import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One answer as a plain HTTP/1.1 client saw it: the status, and whether the body was as long as the
/// answer's Content-Length said (a connection cut mid-body is a failure even after a 200 head).
package struct LoopbackAnswer: Sendable, Equatable {
    /// The status line's code.
    package let status: Int
    /// The body's length in bytes.
    package let bodyBytes: Int
    /// Whether the body had all the bytes Content-Length announced (true when there was none).
    package let isComplete: Bool
    /// The body, when the caller asked to keep it; empty otherwise (a load keeps only lengths).
    package var body: [UInt8] = []

    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }
}

/// GET `path` from 127.0.0.1:`port` on a new connection (`Connection: close`), reading to the end; nil when
/// the connection fails or nothing like an HTTP answer comes back within `timeout` seconds; the answer keeps
/// its body when `keepingBody`; `headers` are sent too. With `keepAlive` the request asks for no close (as a
/// browser's, which the server may answer on its event loop) and is read to the end of its Content-Length.
/// Blocking: call it off Swift's cooperative threads (as `LoopbackLoad` does).
package func loopbackGet(
    port: Int, path: String, timeout: Int = 30, keepingBody: Bool = false, headers: [String: String] = [:],
    keepAlive: Bool = false
) -> LoopbackAnswer? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var limit = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return nil }
    let fields = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
    let close = keepAlive ? "" : "Connection: close\r\n"
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(fields)\(close)\r\n".utf8)
    guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
    var received = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        received += buffer[0..<count]
        if keepAlive, isWholeAnswer(received) { break }
    }
    let separator = Array("\r\n\r\n".utf8)
    guard let end = (0..<max(received.count - 3, 0)).first(where: { received[$0..<$0 + 4].elementsEqual(separator) })
    else { return nil }
    let head = String(decoding: received[..<end], as: UTF8.self).split(separator: "\r\n")
    guard let statusLine = head.first,
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return nil }
    let body = received.count - end - 4
    let announced = head.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    var answer = LoopbackAnswer(status: status, bodyBytes: body, isComplete: announced.map { $0 == body } ?? true)
    if keepingBody { answer.body = Array(received[(end + 4)...]) }
    return answer
}

/// Whether `received` holds a head and as many body bytes as its Content-Length says.
private func isWholeAnswer(_ received: [UInt8]) -> Bool {
    let separator = Array("\r\n\r\n".utf8)
    guard let end = (0..<max(received.count - 3, 0)).first(where: { received[$0..<$0 + 4].elementsEqual(separator) })
    else { return false }
    let length =
        String(decoding: received[..<end], as: UTF8.self).split(separator: "\r\n")
        .first { $0.lowercased().hasPrefix("content-length:") }
        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
    return received.count - end - 4 >= length
}

/// A steady load on one loopback port: `workers` threads each GET the next of `paths` in turn, one request
/// after another, until `stop()`. Every answer is kept, in the order it came back, so a test can assert that
/// none failed and see what came back around a fault.
package final class LoopbackLoad: Sendable {
    /// What one request got: its path, and the answer (nil: the connection failed or was cut before a head).
    package struct Outcome: Sendable {
        /// The path asked for.
        package let path: String
        /// The answer, or nil when there was none.
        package let answer: LoopbackAnswer?

        /// A 200 with its whole body.
        package var succeeded: Bool { answer?.status == 200 && answer?.isComplete == true }
    }

    private let port: Int
    private let paths: [String]
    private let running = Atomic<Bool>(true)
    private let next = Atomic<Int>(0)
    private let outcomes = Mutex<[Outcome]>([])
    private let finished = DispatchGroup()

    /// Starts `workers` threads sending requests for `paths` (round robin) to 127.0.0.1:`port`.
    package init(port: Int, paths: [String], workers: Int) {
        self.port = port
        self.paths = paths
        for _ in 0..<workers {
            finished.enter()
            DispatchQueue.global().async { [self] in
                while running.load(ordering: .relaxed) {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    let path = paths[index % paths.count]
                    let outcome = Outcome(path: path, answer: loopbackGet(port: port, path: path))
                    outcomes.withLock { $0.append(outcome) }
                }
                finished.leave()
            }
        }
    }

    /// How many requests have been answered (or failed) so far.
    package var count: Int { outcomes.withLock { $0.count } }

    /// Stops sending, waits for the requests in flight, and returns every outcome.
    package func stop() async -> [Outcome] {
        running.store(false, ordering: .relaxed)
        await withCheckedContinuation { continuation in
            finished.notify(queue: .global()) { continuation.resume() }
        }
        return outcomes.withLock { $0 }
    }
}
