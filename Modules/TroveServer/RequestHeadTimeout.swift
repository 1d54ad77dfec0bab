import NIOCore
import NIOHTTP1

/// Closes a connection that has not sent a whole request head in time: `headTimeout` from when it opens,
/// and `keepAliveTimeout` from the end of each answer while no request is in progress. A client that
/// trickles its header a byte at a time (slowloris) is cut off, as is an idle keep-alive connection; neither
/// holds more than its socket and a few buffers while it waits.
///
/// It reads NIO's HTTP/1 parts, so it sits right after the request decoder (`HTTPPartHandlersInstaller`
/// puts it there).
final class RequestHeadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let headTimeout: TimeAmount
    private let keepAliveTimeout: TimeAmount
    /// When the connection is closed unless a request head has come; nil while one is being answered.
    private var deadline: NIODeadline?
    /// The one check scheduled, and when it runs. Arming only moves `deadline`, so a request costs no
    /// scheduling; the check re-schedules itself for a deadline that moved on.
    private var check: (task: Scheduled<Void>, at: NIODeadline)?
    /// Requests whose head has come and whose answer has not ended (more than one when pipelined).
    private var inProgress = 0

    /// Its own context, for answers sent ahead of it.
    private var context: ChannelHandlerContext?

    init(headTimeout: TimeAmount, keepAliveTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.keepAliveTimeout = keepAliveTimeout
    }

    /// Whether every request that came through has been answered.
    var isIdle: Bool { inProgress == 0 }

    /// A request was answered ahead of this handler (`ExpressHitHandler`), so it never came through: the
    /// keep-alive wait starts again, as after an answer from behind.
    func answeredAhead() {
        if let context, inProgress == 0 { arm(context, after: keepAliveTimeout) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { arm(context, after: headTimeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        disarm()
        cancelCheck()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, after: headTimeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        cancelCheck()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            inProgress += 1
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inProgress = max(0, inProgress - 1)
            if inProgress == 0 { arm(context, after: keepAliveTimeout) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, after timeout: TimeAmount) {
        let deadline = NIODeadline.now() + timeout
        self.deadline = deadline
        if let check, check.at <= deadline { return }
        schedule(context, at: deadline)
    }

    private func schedule(_ context: ChannelHandlerContext, at time: NIODeadline) {
        check?.task.cancel()
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let task = context.eventLoop.scheduleTask(deadline: time) {
            loopBound.value.handler.checkDeadline(loopBound.value.context)
        }
        check = (task, time)
    }

    private func checkDeadline(_ context: ChannelHandlerContext) {
        check = nil
        guard let deadline else { return }
        if deadline <= .now() {
            context.close(promise: nil)
        } else {
            schedule(context, at: deadline)
        }
    }

    private func disarm() {
        deadline = nil
    }

    private func cancelCheck() {
        check?.task.cancel()
        check = nil
    }
}
