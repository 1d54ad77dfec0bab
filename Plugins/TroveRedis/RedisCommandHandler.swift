import NIOCore
import TroveCore

/// One command on its way to the server: its encoded bytes and the promise its reply completes.
struct RedisRequest: Sendable {
    let bytes: ByteBuffer
    let reply: EventLoopPromise<RESPValue>
}

/// Matches replies to commands on one connection.
///
/// Redis answers in the order it was asked, so pending promises form a FIFO queue: a command may be
/// written while earlier ones still wait (pipelining). A command that waits longer than the timeout
/// closes the connection, since every command queued behind it would be late too, and a reply arriving
/// after its promise were gone would be handed to the wrong command.
final class RedisCommandHandler: ChannelDuplexHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = RedisRequest
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        let reply: EventLoopPromise<RESPValue>
        let timeout: Scheduled<Void>?
    }

    private var pending = CircularBuffer<Pending>(initialCapacity: 16)
    private let commandTimeout: TimeAmount
    private let configuration: RedisConfiguration
    /// Set once the connection is unusable; later writes fail with it at once.
    private var failure: TroveError?

    init(configuration: RedisConfiguration, commandTimeout: TimeAmount) {
        self.configuration = configuration
        self.commandTimeout = commandTimeout
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let failure {
            request.reply.fail(failure)
            promise?.fail(failure)
            return
        }
        // The timer fires on this handler's event loop, where handler and context may be touched.
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let timeout = context.eventLoop.scheduleTask(in: commandTimeout) {
            let (handler, context) = bound.value
            handler.fail(
                context: context,
                with: RedisFailure.unavailable(
                    handler.configuration,
                    "no reply within \(handler.commandTimeout.nanoseconds / 1_000_000) ms; closed the connection"))
        }
        pending.append(Pending(reply: request.reply, timeout: timeout))
        context.write(wrapOutboundOut(request.bytes), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = unwrapInboundIn(data)
        guard let first = pending.popFirst() else {
            // RESP2 servers never speak unasked; a stray reply means the stream is out of step.
            fail(
                context: context,
                with: RedisFailure.unavailable(configuration, "unexpected reply with no command waiting"))
            return
        }
        first.timeout?.cancel()
        first.reply.succeed(value)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(RedisFailure.unavailable(configuration, "connection closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let reason: TroveError
        if let parseError = error as? RESPParser.ProtocolError {
            reason = RedisFailure.unavailable(configuration, "protocol error (\(parseError)); closed the connection")
        } else if let trove = error as? TroveError {
            reason = trove
        } else {
            reason = RedisFailure.unavailable(configuration, "connection failed (\(error))")
        }
        fail(context: context, with: reason)
    }

    /// Fails everything waiting and closes: the stream can no longer be trusted.
    private func fail(context: ChannelHandlerContext, with error: TroveError) {
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: TroveError) {
        if failure == nil { failure = error }
        while let entry = pending.popFirst() {
            entry.timeout?.cancel()
            entry.reply.fail(error)
        }
    }
}
