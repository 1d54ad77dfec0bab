import NIOCore
import NIOHTTP1

/// Closes a connection that has not sent a whole request head in time: `headTimeout` from when it opens,
/// and `keepAliveTimeout` from the end of each answer while no request is in progress. A client that
/// trickles its header a byte at a time (slowloris) is cut off, as is an idle keep-alive connection; neither
/// holds more than its socket and a few buffers while it waits.
///
/// It reads NIO's HTTP/1 parts, so it sits right after the request decoder (`RequestHeadTimeoutInstaller`
/// puts it there).
final class RequestHeadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let headTimeout: TimeAmount
    private let keepAliveTimeout: TimeAmount
    private var pending: Scheduled<Void>?
    /// Requests whose head has come and whose answer has not ended (more than one when pipelined).
    private var inProgress = 0

    init(headTimeout: TimeAmount, keepAliveTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.keepAliveTimeout = keepAliveTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, after: headTimeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, after: headTimeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
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
        pending?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        pending = context.eventLoop.scheduleTask(in: timeout) {
            loopBound.value.close(promise: nil)
        }
    }

    private func disarm() {
        pending?.cancel()
        pending = nil
    }
}

/// Hummingbird adds its extra handlers after its HTTP/1 codec, where parts are already its own types; this
/// one puts a `RequestHeadTimeoutHandler` right after NIO's request decoder instead, and otherwise passes
/// everything on untouched.
final class RequestHeadTimeoutInstaller: ChannelInboundHandler, RemovableChannelHandler {
    /// Never unwrapped: every part is passed on as it came.
    typealias InboundIn = Any

    private let headTimeout: TimeAmount
    private let keepAliveTimeout: TimeAmount

    init(headTimeout: TimeAmount, keepAliveTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.keepAliveTimeout = keepAliveTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let operations = context.pipeline.syncOperations
        if let decoder = try? operations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
            try? operations.addHandler(
                RequestHeadTimeoutHandler(headTimeout: headTimeout, keepAliveTimeout: keepAliveTimeout),
                position: .after(decoder.handler))
        }
    }
}
