import Foundation
import NIOCore
import NIOPosix
import Synchronization
import TroveCore

/// The shared cache tier on Redis: plain `GET`/`SET PX`/`DEL` under `options.keyPrefix`, and leases
/// taken with `SET NX PX` and given back with a compare-and-delete script.
///
/// Every failure to answer throws `TroveError.sharedTierUnavailable` (the pipeline goes on without the
/// tier and owns the circuit breaker); a wrong password throws `invalidConfiguration` on every call.
package final class RedisSharedTier: SharedCacheTier {
    /// The client underneath, for commands the tier does not wrap (`INFO`, `DBSIZE`, ...).
    package let client: RedisClient
    /// The options the tier was made with.
    package let options: SharedTierOptions

    private let prefix: [UInt8]
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let stores = Atomic<Int>(0)
    private let errors = Atomic<Int>(0)
    private let oversized = Atomic<Int>(0)
    /// The counts already added to the fleet's hash.
    private let published = Mutex(SharedTierStatistics())

    /// Deletes a lease only while it still holds the caller's token, in one step on the server.
    static let releaseScript = """
        if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end
        """

    /// A tier on the server `configuration` names; connects on first use.
    package init(
        configuration: RedisConfiguration, options: SharedTierOptions = SharedTierOptions(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        client = RedisClient(configuration: configuration, options: options, eventLoopGroup: eventLoopGroup)
        self.options = options
        prefix = Array(options.keyPrefix.utf8)
    }

    /// `options.maxValueBytes`: Redis holds every value in memory.
    package var maxValueBytes: Int? { options.maxValueBytes }

    /// Values `set` did not store because they were larger than `options.maxValueBytes`.
    package var oversizedValuesSkipped: Int { oversized.load(ordering: .relaxed) }

    /// `GET <prefix><key>`: the value, or nil on a miss.
    package func get(_ key: String) async throws -> Data? {
        let reply = try await run("GET", [.init(string: "GET"), storageKey(key)])
        switch reply {
        case let .bulkString(buffer?):
            hits.add(1, ordering: .relaxed)
            return Self.data(sharing: buffer)
        case .bulkString(nil):
            misses.add(1, ordering: .relaxed)
            return nil
        default:
            throw unexpected("GET", reply)
        }
    }

    /// `SET <prefix><key> <value> PX <ttl ms>`; a value over `options.maxValueBytes` is skipped and counted instead.
    package func set(_ key: String, value: Data, ttl: Duration) async throws {
        guard value.count <= options.maxValueBytes else {
            // Not an outage and not the caller's mistake: the value is simply not shared.
            oversized.add(1, ordering: .relaxed)
            return
        }
        var bytes = ByteBufferAllocator().buffer(capacity: value.count)
        value.withUnsafeBytes { _ = bytes.writeBytes($0) }
        let reply = try await run(
            "SET",
            [
                .init(string: "SET"), storageKey(key), bytes,
                .init(string: "PX"), .init(string: String(Self.milliseconds(ttl)))
            ])
        guard case .simpleString = reply else { throw unexpected("SET", reply) }
        stores.add(1, ordering: .relaxed)
    }

    /// `DEL <prefix><key>`.
    package func delete(_ key: String) async throws {
        let reply = try await run("DEL", [.init(string: "DEL"), storageKey(key)])
        guard case .integer = reply else { throw unexpected("DEL", reply) }
    }

    /// `SET <prefix>lease:<key> <random token> NX PX <ttl ms>`: the lease, or nil while another holder has it.
    package func acquireLease(on key: String, ttl: Duration) async throws -> SharedTierLease? {
        let token = Self.makeToken()
        let reply = try await run(
            "SET NX",
            [
                .init(string: "SET"), leaseKey(key), .init(string: token),
                .init(string: "NX"), .init(string: "PX"),
                .init(string: String(Self.milliseconds(ttl)))
            ])
        switch reply {
        case .simpleString: return SharedTierLease(key: key, token: token)
        case .bulkString(nil): return nil
        default: throw unexpected("SET NX", reply)
        }
    }

    /// Deletes the lease key only if it still holds this lease's token (a Lua compare-and-delete).
    package func releaseLease(_ lease: SharedTierLease) async throws {
        let reply = try await run(
            "EVAL",
            [
                .init(string: "EVAL"), .init(string: Self.releaseScript),
                .init(string: "1"), leaseKey(lease.key), .init(string: lease.token)
            ])
        guard case .integer = reply else { throw unexpected("EVAL", reply) }
    }

    /// Hits, misses, stores, errors (every thrown error) and oversized values skipped since the tier was made.
    package func statistics() -> SharedTierStatistics {
        SharedTierStatistics(
            hits: hits.load(ordering: .relaxed), misses: misses.load(ordering: .relaxed),
            stores: stores.load(ordering: .relaxed), errors: errors.load(ordering: .relaxed),
            skipped: oversized.load(ordering: .relaxed))
    }

    /// The counts every process has published in the hash `<prefix>stats` (`HGETALL`).
    package func fleetStatistics() async throws -> SharedTierStatistics {
        let reply = try await run("HGETALL", [.init(string: "HGETALL"), storageKey(Self.statisticsKey)])
        guard case let .array(items?) = reply, items.count.isMultiple(of: 2) else { throw unexpected("HGETALL", reply) }
        var fields: [String: Int] = [:]
        for index in stride(from: 0, to: items.count, by: 2) {
            if let name = items[index].string, let value = items[index + 1].string.flatMap({ Int($0) }) {
                fields[name] = value
            }
        }
        return SharedTierStatistics(
            hits: fields["hits"] ?? 0, misses: fields["misses"] ?? 0,
            stores: fields["stores"] ?? 0, errors: fields["errors"] ?? 0,
            skipped: fields["skipped"] ?? 0)
    }

    /// Adds this tier's counts to `<prefix>stats` (best effort: a server that is gone loses them), then
    /// closes the connections; later calls throw `sharedTierUnavailable`.
    package func shutdown() async {
        await publishStatistics()
        await client.shutdown()
    }

    /// `HINCRBY <prefix>stats <field> <count since the last publish>` for each count that grew, pipelined.
    private func publishStatistics() async {
        let now = statistics()
        let deltas = published.withLock { published -> [(String, Int)] in
            defer { published = now }
            return [
                ("hits", now.hits - published.hits), ("misses", now.misses - published.misses),
                ("stores", now.stores - published.stores), ("errors", now.errors - published.errors),
                ("skipped", now.skipped - published.skipped)
            ].filter { $0.1 > 0 }
        }
        guard !deltas.isEmpty else { return }
        let key = storageKey(Self.statisticsKey)
        let client = client
        await withTaskGroup(of: Void.self) { group in
            for (field, delta) in deltas {
                group.addTask {
                    _ = try? await client.send(buffers: [
                        .init(string: "HINCRBY"), key, .init(string: field),
                        .init(string: String(delta))
                    ])
                }
            }
        }
    }

    /// Where processes publish their counts, under the key prefix.
    static let statisticsKey = "_statistics"

    // MARK: Internals

    /// Sends a command; server errors and transport failures become `TroveError`s and are counted.
    private func run(_ name: String, _ arguments: [ByteBuffer]) async throws -> RESPValue {
        do {
            let reply = try await client.send(buffers: arguments)
            if case let .error(message) = reply {
                throw RedisFailure.serverError(client.configuration, command: name, message: message)
            }
            return reply
        } catch let error as TroveError {
            errors.add(1, ordering: .relaxed)
            throw error
        } catch {
            errors.add(1, ordering: .relaxed)
            throw RedisFailure.unavailable(client.configuration, "\(error)")
        }
    }

    private func unexpected(_ command: String, _ reply: RESPValue) -> TroveError {
        errors.add(1, ordering: .relaxed)
        return RedisFailure.unexpectedReply(client.configuration, command: command, reply: reply)
    }

    /// `<prefix><key>` as bytes (keys are UTF-8; any character, spaces included, is fine in a bulk string).
    func storageKey(_ key: String) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: prefix.count + key.utf8.count)
        buffer.writeBytes(prefix)
        buffer.writeString(key)
        return buffer
    }

    /// `<prefix>lease:<key>`.
    func leaseKey(_ key: String) -> ByteBuffer {
        storageKey("lease:" + key)
    }

    /// A TTL in whole milliseconds, rounded up and at least 1 (`PX 0` is an error).
    static func milliseconds(_ ttl: Duration) -> Int64 {
        let (seconds, attoseconds) = ttl.components
        guard seconds >= 0, attoseconds >= 0, seconds > 0 || attoseconds > 0 else { return 1 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return Int64.max / 2 }
        let partial = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return whole + partial
    }

    /// A reply's bytes as `Data`. A large value that fills most of its buffer's storage is not copied: the
    /// `Data` points into the storage and its deallocator holds the buffer (an immutable copy, so NIO writes
    /// elsewhere). A small one is copied, so it does not pin a read buffer shared with other replies.
    static func data(sharing buffer: ByteBuffer) -> Data {
        let count = buffer.readableBytes
        guard count >= 16 << 10, count * 2 >= buffer.storageCapacity else {
            return buffer.withUnsafeReadableBytes { Data($0) }
        }
        return buffer.withUnsafeReadableBytes { bytes in
            Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: count,
                deallocator: .custom { _, _ in withExtendedLifetime(buffer) {} })
        }
    }

    /// 128 random bits in hex: proves which process holds a lease.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
