import NIOCore

/// Answers result-cache hits from the bytes a client sent, ahead of NIO's HTTP codec: a read that holds
/// exactly one plain GET or HEAD (`PlainRequestHead`) whose result is kept is answered with one head buffer
/// and the kept body, with no request decoding, no response encoding and no pass through the pipeline.
///
/// It answers only while the decoder behind holds no bytes (every read passed on so far was a whole plain
/// request) and every request passed on has been answered (`RequestHeadTimeoutHandler.isIdle`), so answers
/// keep their order, and only while the socket is writable. Everything else goes on untouched to the decoder,
/// where `CachedResultHandler` answers the hits this one cannot. A read passed on that was not a whole plain
/// request may leave bytes in the decoder, so the connection's later hits go that way too.
final class ExpressHitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answers: CachedResultAnswers
    private let timeout: RequestHeadTimeoutHandler
    /// Whether everything passed on to the decoder was whole plain requests, so it holds nothing now.
    private var decoderIsEmpty = true
    private var forwarded = ForwardedReads()

    /// `timeout` is the connection's handler behind the decoder: it tells whether a request is being
    /// answered there, and hears of the answers sent here.
    init(answers: CachedResultAnswers, timeout: RequestHeadTimeoutHandler) {
        self.answers = answers
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if decoderIsEmpty {
            let head = bytes.withUnsafeReadableBytes { PlainRequestHead($0) }
            if let head, timeout.isIdle, context.channel.isWritable,
                let answer = answers.answer(to: HitRequest(head))
            {
                var buffer = context.channel.allocator.buffer(capacity: answer.headers.wire.count + 64)
                answer.writeHead(date: answers.date.text, into: &buffer)
                if let body = answer.body {
                    context.write(wrapOutboundOut(buffer), promise: nil)
                    context.writeAndFlush(wrapOutboundOut(body), promise: nil)
                } else {
                    context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
                }
                timeout.answeredAhead()
                return
            }
            decoderIsEmpty = head != nil
        }
        forwarded.pass(data, from: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        forwarded.completeRead(from: context)
    }
}
