import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves names with the system's getaddrinfo (so /etc/hosts, nsswitch and the system's address
/// ordering apply). getaddrinfo blocks, so it runs on a dispatch queue, never on Swift's cooperative pool.
package struct SystemHostResolver: HostResolver {
    private static let queue = DispatchQueue(label: "trove.host-resolver", attributes: .concurrent)

    /// A resolver over the system's getaddrinfo.
    package init() {}

    /// getaddrinfo cannot be stopped, so a cancelled caller is let go at once with `CancellationError` and
    /// the lookup finishes unheard: a stuck DNS server never holds a request past its deadline.
    package func addresses(of host: String) async throws -> [IPAddress] {
        let waiter = LookupWaiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.hold(continuation)
                if Task.isCancelled { waiter.resume(.failure(CancellationError())); return }
                Self.queue.async { waiter.resume(Result { try Self.lookUp(host) }) }
            }
        } onCancel: {
            waiter.resume(.failure(CancellationError()))
        }
    }

    private static func lookUp(_ host: String) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            throw HostResolutionError(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var found: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr.flatMap(Self.address(of:)), !found.contains(address) {
                found.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !found.isEmpty else { throw HostResolutionError(host: host, reason: "no addresses") }
        return found
    }

    private static func address(of socketAddress: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                .v4(UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                var raw = pointer.pointee.sin6_addr
                let bits = withUnsafeBytes(of: &raw) { bytes in bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) } }
                return .v6(bits)
            }
        default:
            return nil
        }
    }
}

/// The one continuation of a lookup, resumed by whichever comes first: the answer or the cancellation.
private final class LookupWaiter: Sendable {
    private let continuation = Mutex<CheckedContinuation<[IPAddress], any Error>?>(nil)

    func hold(_ continuation: CheckedContinuation<[IPAddress], any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(_ result: Result<[IPAddress], any Error>) {
        continuation.withLock { current in
            defer { current = nil }
            return current
        }?.resume(with: result)
    }
}

/// A name that did not resolve.
package struct HostResolutionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name that was looked up.
    package var host: String
    /// What getaddrinfo said (gai_strerror), or that it found no address.
    package var reason: String

    /// An error for `host`, with getaddrinfo's reason.
    package init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }

    /// "could not resolve HOST: REASON".
    package var description: String { "could not resolve \(host): \(reason)" }
}
