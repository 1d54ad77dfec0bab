import NIOCore
import NIOPosix
import TroveCore

/// A small Redis client: send a command, get its reply. Commands from any number of tasks are pipelined
/// over a few shared connections (`SharedTierOptions.connections`), which log in and reconnect on their own.
///
/// Server error replies come back as `RESPValue.error` for the caller to read (`INFO`, `CONFIG`, ...);
/// a lost or slow server throws `TroveError.sharedTierUnavailable`, wrong credentials throw
/// `TroveError.invalidConfiguration`.
package final class RedisClient: Sendable {
    /// Where the client connects, and as whom.
    package let configuration: RedisConfiguration
    private let pool: RedisConnectionPool

    /// A client for `configuration`; no connection is opened until the first command.
    /// - Parameters:
    ///   - options: `connections`, `connectTimeout` and `commandTimeout` apply; the rest is for the tier.
    ///   - eventLoopGroup: where the connections run (NIO's shared group by default).
    package init(
        configuration: RedisConfiguration, options: SharedTierOptions = SharedTierOptions(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        pool = RedisConnectionPool(
            configuration: configuration, connections: options.connections,
            connectTimeout: options.connectTimeout, commandTimeout: options.commandTimeout,
            group: eventLoopGroup)
    }

    /// Sends a command given as strings (sent as their UTF-8 bytes), e.g. `send(["INFO", "memory"])`.
    package func send(_ arguments: [String]) async throws -> RESPValue {
        try await pool.send(arguments.map { ByteBuffer(string: $0) })
    }

    /// Sends a command given as strings, e.g. `send("PING")`.
    package func send(_ command: String, _ arguments: String...) async throws -> RESPValue {
        try await send([command] + arguments)
    }

    /// Sends a command whose arguments are arbitrary bytes.
    package func send(bytes arguments: [[UInt8]]) async throws -> RESPValue {
        try await pool.send(arguments.map { ByteBuffer(bytes: $0) })
    }

    /// Sends a command whose arguments are already in NIO buffers (no copy before encoding).
    package func send(buffers arguments: [ByteBuffer]) async throws -> RESPValue {
        try await pool.send(arguments)
    }

    /// Closes the connections; later commands throw `sharedTierUnavailable`.
    package func shutdown() async {
        await pool.shutdown()
    }
}
