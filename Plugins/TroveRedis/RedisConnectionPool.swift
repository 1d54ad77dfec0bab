import NIOCore
import NIOPosix
import Synchronization
import TroveCore

/// Up to `connections` connections to one server, shared by every caller; commands are pipelined on them.
///
/// Connections open on first use, each logged in (`AUTH`, `SELECT`, `PING`) before it carries a command.
/// A slot whose connection dropped is redialled on the next use; a failed dial waits out a growing backoff
/// first. While no connection is up and every slot is backing off, callers fail at once instead of
/// queueing behind a dead server: that keeps the pipeline fast when Redis is down.
final class RedisConnectionPool: Sendable {
    /// One connection's place in the pool.
    private enum Slot {
        /// No connection; the next use may dial once `retryAt` has passed.
        case idle(failures: Int, retryAt: NIODeadline, lastError: TroveError?)
        /// Dialling; `failures` counts the failed dials before this one, for the next backoff.
        case connecting(EventLoopFuture<any Channel>, failures: Int)
        case ready(any Channel)
    }

    private struct State {
        var slots: [Slot]
        /// Bumped whenever a slot starts a new connection, so a late callback from an old one is ignored.
        var generations: [Int]
        var roundRobin = 0
        var isShutDown = false
    }

    private enum Plan {
        case use(any Channel)
        case wait(EventLoopFuture<any Channel>)
        case fail(TroveError)
    }

    let configuration: RedisConfiguration
    private let connectTimeout: TimeAmount
    private let commandTimeout: TimeAmount
    private let group: any EventLoopGroup
    private let state: Mutex<State>

    /// Backoff after the n-th failed dial in a row: 50 ms doubling up to 2 s, with ±25% jitter so a fleet
    /// does not redial in step.
    static func backoff(afterFailures failures: Int) -> TimeAmount {
        let base = min(2_000, 50 << min(max(failures - 1, 0), 6))
        let jittered = Double(base) * Double.random(in: 0.75...1.25)
        return .milliseconds(Int64(jittered))
    }

    init(
        configuration: RedisConfiguration, connections: Int, connectTimeout: Duration, commandTimeout: Duration,
        group: any EventLoopGroup
    ) {
        self.configuration = configuration
        self.connectTimeout = .nanoseconds(connectTimeout.nanoseconds)
        self.commandTimeout = .nanoseconds(commandTimeout.nanoseconds)
        self.group = group
        let count = max(1, connections)
        state = Mutex(
            State(
                slots: Array(
                    repeating: .idle(failures: 0, retryAt: .uptimeNanoseconds(0), lastError: nil),
                    count: count),
                generations: Array(repeating: 0, count: count)))
    }

    /// Sends one command and waits for its reply; server error replies come back as `.error`, not thrown.
    func send(_ arguments: [ByteBuffer]) async throws -> RESPValue {
        let channel = try await channel()
        return try await Self.send(arguments, on: channel, configuration: configuration)
    }

    /// A logged-in connection: a live one if any, else the result of a dial in progress, else a fast failure.
    func channel() async throws -> any Channel {
        var dials: [(slot: Int, generation: Int, promise: EventLoopPromise<any Channel>)] = []
        let now = NIODeadline.now()
        let plan: Plan = state.withLock { state in
            if state.isShutDown {
                return .fail(RedisFailure.unavailable(configuration, "the client was shut down"))
            }
            var ready: [any Channel] = []
            var connecting: EventLoopFuture<any Channel>?
            var soonest: (retryAt: NIODeadline, error: TroveError?)?
            for index in state.slots.indices {
                switch state.slots[index] {
                case let .ready(channel):
                    ready.append(channel)
                case let .connecting(future, _):
                    connecting = connecting ?? future
                case let .idle(failures, retryAt, lastError):
                    if retryAt <= now {
                        // Fill the pool: every slot that may dial does, not just the one this caller needs.
                        let promise = group.next().makePromise(of: (any Channel).self)
                        state.generations[index] += 1
                        state.slots[index] = .connecting(promise.futureResult, failures: failures)
                        dials.append((index, state.generations[index], promise))
                        connecting = connecting ?? promise.futureResult
                    } else if soonest == nil || retryAt < soonest!.retryAt {
                        soonest = (retryAt, lastError)
                    }
                }
            }
            if !ready.isEmpty {
                state.roundRobin &+= 1
                return .use(ready[state.roundRobin % ready.count])
            }
            if let connecting { return .wait(connecting) }
            // Every slot is backing off: answer now rather than wait for a server that just failed.
            let lastError = soonest?.error
            if case .invalidConfiguration = lastError { return .fail(lastError!) }
            let waitMs = soonest.map { max(0, ($0.retryAt - now).nanoseconds / 1_000_000) } ?? 0
            let reason =
                lastError.map { error -> String in
                    if case let .sharedTierUnavailable(reason) = error { return reason }
                    return error.description
                } ?? "no connection"
            return .fail(
                .sharedTierUnavailable(
                    reason: "\(reason); no live connection, next attempt in \(waitMs) ms"))
        }
        for dial in dials { startDial(slot: dial.slot, generation: dial.generation, promise: dial.promise) }
        switch plan {
        case let .use(channel): return channel
        case let .wait(future): return try await future.get()
        case let .fail(error): throw error
        }
    }

    /// Closes every connection; later calls fail with `sharedTierUnavailable`.
    func shutdown() async {
        let channels: [any Channel] = state.withLock { state in
            state.isShutDown = true
            return state.slots.compactMap { if case let .ready(channel) = $0 { channel } else { nil } }
        }
        for channel in channels {
            try? await channel.close()
        }
    }

    // MARK: Dialling

    private func startDial(slot: Int, generation: Int, promise: EventLoopPromise<any Channel>) {
        Task {
            do {
                let channel = try await openAndLogIn()
                let accepted = state.withLock { state -> Bool in
                    guard !state.isShutDown, state.generations[slot] == generation else { return false }
                    state.slots[slot] = .ready(channel)
                    return true
                }
                guard accepted else {
                    try? await channel.close()
                    throw RedisFailure.unavailable(configuration, "the client was shut down")
                }
                channel.closeFuture.whenComplete { [self] _ in
                    // A dropped connection is redialled on the next use, at once (the server may just have restarted).
                    state.withLock { state in
                        guard state.generations[slot] == generation, case .ready = state.slots[slot] else { return }
                        state.slots[slot] = .idle(
                            failures: 0, retryAt: .now(),
                            lastError: RedisFailure.unavailable(configuration, "connection closed"))
                    }
                }
                promise.succeed(channel)
            } catch {
                let trove = error as? TroveError ?? RedisFailure.unavailable(configuration, "\(error)")
                state.withLock { state in
                    guard state.generations[slot] == generation else { return }
                    var failures = 1
                    if case let .connecting(_, previous) = state.slots[slot] { failures = previous + 1 }
                    state.slots[slot] = .idle(
                        failures: failures, retryAt: .now() + Self.backoff(afterFailures: failures),
                        lastError: trove)
                }
                promise.fail(trove)
            }
        }
    }

    /// Opens a TCP connection and logs it in; throws `sharedTierUnavailable` or, for credentials, `invalidConfiguration`.
    private func openAndLogIn() async throws -> any Channel {
        let configuration = configuration
        let commandTimeout = commandTimeout
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture(withResultOf: {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RESPReplyDecoder()))
                    try channel.pipeline.syncOperations.addHandler(
                        RedisCommandHandler(configuration: configuration, commandTimeout: commandTimeout))
                })
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
        } catch {
            throw RedisFailure.unavailable(configuration, "cannot connect (\(Self.describe(error)))")
        }
        do {
            try await logIn(channel)
            return channel
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// `AUTH`, `SELECT` and a `PING` written together; the `PING` makes a server that wants a password
    /// we did not give say so now (`NOAUTH`), not on the first real command.
    private func logIn(_ channel: any Channel) async throws {
        var commands: [(name: String, arguments: [ByteBuffer])] = []
        if let password = configuration.password {
            var arguments = [ByteBuffer(string: "AUTH")]
            if let user = configuration.user { arguments.append(ByteBuffer(string: user)) }
            arguments.append(ByteBuffer(string: password))
            commands.append(("AUTH", arguments))
        }
        // Always, even for 0: the connection then never depends on the server's default database.
        commands.append(("SELECT", [ByteBuffer(string: "SELECT"), ByteBuffer(string: String(configuration.database))]))
        commands.append(("PING", [ByteBuffer(string: "PING")]))

        let replies = commands.map { command in
            Self.write(command.arguments, on: channel, configuration: configuration, flush: false)
        }
        channel.flush()
        for (command, reply) in zip(commands, replies) {
            let value = try await reply.get()
            guard case let .error(message) = value else { continue }
            if RedisFailure.isAuthenticationError(message) {
                throw RedisFailure.authentication(configuration, serverMessage: message)
            }
            if command.name == "SELECT" {
                throw TroveError.invalidConfiguration(
                    "redis at \(configuration.endpoint) refused SELECT "
                        + "\(configuration.database): \(message); check the database number in the redis:// URL")
            }
            throw RedisFailure.serverError(configuration, command: command.name, message: message)
        }
    }

    // MARK: Writing

    /// Writes one command on `channel` and waits for its reply.
    static func send(
        _ arguments: [ByteBuffer], on channel: any Channel,
        configuration: RedisConfiguration
    ) async throws -> RESPValue {
        try await write(arguments, on: channel, configuration: configuration, flush: true).get()
    }

    /// Queues one command; the future completes with its reply, or fails if the connection goes first.
    static func write(
        _ arguments: [ByteBuffer], on channel: any Channel, configuration: RedisConfiguration,
        flush: Bool
    ) -> EventLoopFuture<RESPValue> {
        var bytes = channel.allocator.buffer(capacity: RESPCommand.encodedSize(arguments))
        RESPCommand.encode(arguments, into: &bytes)
        let reply = channel.eventLoop.makePromise(of: RESPValue.self)
        let written = channel.eventLoop.makePromise(of: Void.self)
        // A closed channel drops the write before our handler sees it, so its promise must fail the reply.
        written.futureResult.whenFailure { error in
            reply.fail(
                error as? TroveError ?? RedisFailure.unavailable(configuration, "connection lost (\(describe(error)))"))
        }
        let request = RedisRequest(bytes: bytes, reply: reply)
        if flush {
            channel.writeAndFlush(request, promise: written)
        } else {
            channel.write(request, promise: written)
        }
        return reply.futureResult
    }

    /// A short description of a NIO error ("connection refused", ...).
    static func describe(_ error: any Error) -> String {
        if let connection = error as? NIOConnectionError, let first = connection.connectionErrors.first {
            return describe(first.error)
        }
        if let io = error as? IOError { return io.description }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout(let amount): return "connect timed out after \(amount.nanoseconds / 1_000_000) ms"
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .eof: return "connection closed"
            default: return "\(channel)"
            }
        }
        return "\(error)"
    }
}
