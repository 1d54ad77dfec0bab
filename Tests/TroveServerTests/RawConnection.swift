import Foundation
import Glibc

/// A plain TCP connection to a loopback server, for tests that behave as bad clients do: trickle a header,
/// hold a connection open, or go idle. Reads never block a thread; they poll and sleep.
final class RawConnection {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks the socket's receive buffer (SO_RCVBUF), so
    /// what the server can have sent before the client reads is bounded by the server's send buffer.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { Glibc.close(descriptor) }

    /// Sends `text` as it is; throws when the server has closed the connection.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw POSIXError(.EPIPE) }
    }

    /// Half-closes the connection: the server reads the end of the client's input, and may still write.
    func shutdownWrite() {
        Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads for `duration` at most `bytesPerSecond`, a tenth of it every 100 ms, as a slow client does.
    func readSlowly(bytesPerSecond: Int, for duration: Duration) async -> [UInt8] {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + duration
        var buffer = [UInt8](repeating: 0, count: max(1, bytesPerSecond / 10))
        while ContinuousClock.now < deadline {
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count == 0 { break }
            if count > 0 { received += buffer[0..<count] }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return received
    }

    /// What the server sent until it closed the connection or `limit` passed, and whether it closed.
    func read(forAtMost limit: Duration) async -> (text: String, closed: Bool) {
        let (bytes, closed) = await readBytes(forAtMost: limit)
        return (String(decoding: bytes, as: UTF8.self), closed)
    }

    /// Whether the server has sent at least one byte within `limit`; reads nothing.
    func waitForFirstByte(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        var byte: UInt8 = 0
        while ContinuousClock.now < deadline {
            if recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0 { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// As `read(forAtMost:)`, as bytes.
    func readBytes(forAtMost limit: Duration) async -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline {
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count == 0 { return (received, true) }
            if count > 0 {
                received += buffer[0..<count]
                continue
            }
            if errno != EAGAIN && errno != EWOULDBLOCK { return (received, true) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return (received, false)
    }
}
