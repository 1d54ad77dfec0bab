import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP connection to redis-server that writes a RESP command and reads its reply whole: the
/// floor under the tier's GET, with no event loop, connection pool, timeout or counter.
final class BareRedisConnection: @unchecked Sendable {  // one benchmark uses it at a time
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)

    /// Connects to 127.0.0.1:`port`; throws when nothing listens there yet.
    init(port: Int) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        // Small requests go out at once, as the tier's NIO channel sends them.
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(descriptor) }

    /// Sends `arguments` as a RESP array and reads the reply: a bulk string's payload (nil for a null one),
    /// or an empty array for a simple string such as `+PONG`. Throws on an error reply or a closed socket.
    func command(_ arguments: [[UInt8]]) throws -> ArraySlice<UInt8>? {
        var request = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            request += Array("$\(argument.count)\r\n".utf8) + argument + [13, 10]
        }
        var sent = 0
        while sent < request.count {
            let wrote = request.withUnsafeBytes { write(descriptor, $0.baseAddress! + sent, $0.count - sent) }
            guard wrote > 0 else { throw POSIXError(.EPIPE) }
            sent += wrote
        }
        var filled = 0
        var reply: (end: Int, payload: Range<Int>?)?
        while reply.map({ filled < $0.end }) ?? true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            guard count > 0 else { throw POSIXError(.ECONNRESET) }
            filled += count
            if reply == nil, let lineEnd = (1..<filled).first(where: { buffer[$0 - 1] == 13 && buffer[$0] == 10 }) {
                let header = String(decoding: buffer[1..<(lineEnd - 1)], as: UTF8.self)
                switch buffer[0] {
                case UInt8(ascii: "$"):
                    let length = Int(header) ?? -1, start = lineEnd + 1
                    reply = length < 0 ? (start, nil) : (start + length + 2, start..<(start + length))
                    precondition((reply?.end ?? 0) <= buffer.count, "a reply larger than the 1 MiB buffer")
                case UInt8(ascii: "-"): throw POSIXError(.EPROTO)
                default: reply = (lineEnd + 1, 0..<0)
                }
            }
        }
        return reply?.payload.map { buffer[$0] }
    }
}
