import NIOCore
import NIOHTTP1

/// The one handler of a `trove serve` connection, with one `ConnectionState`: it answers result-cache hits
/// on the event loop, ahead of the router; it times out a connection that sends no request head, idles past
/// the keep-alive timeout or stops taking bytes; and it lets a close (a shutdown's, a half-closed client's,
/// Hummingbird's) go ahead only once every answer queued before it is written.
///
/// It sits nearest the socket, ahead of NIO's HTTP/1 codec, where it reads the client's bytes and sees every
/// byte written; its `DecodedSide` sits right after NIO's request decoder, where it reads the decoder's parts
/// and sees the router's answers (`TroveHTTP1Channel` installs both). A read that holds exactly one plain
/// GET or HEAD (`PlainRequestHead`) whose result is kept is answered from its bytes (one head buffer from
/// fields serialised when the result was made, and the kept body); anything else goes on to the decoder, and
/// the decoded side answers the hits among it at their ends (through NIO's encoder, which pairs each answer
/// with the method the decoder recorded). Any hit is answered only while no answer of any kind is pending
/// (`ConnectionState.mayAnswerHit`), so answers keep their order; a hit read from bytes also only while the
/// decoder holds none. The decoder's heads are held back until their end, a body or the read's end: a head
/// it then refuses is dropped unanswered, and Hummingbird's 400 is the only answer.
///
/// Writes are cut into slices of `sliceLength` and each is tracked to its completion, which is the
/// connection's clock: the keep-alive wait starts when the last byte of an answer is written, and while
/// bytes wait, a client that takes none for the write timeout is closed (`trove_serve_write_timeouts_total`)
/// and its buffers let go.
final class ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// What every connection shares.
    struct Configuration: Sendable {
        /// Nil with `--no-result-cache`: no hits are answered here.
        var answers: CachedResultAnswers?
        var metrics: ServerMetrics
        var timeouts: ConnectionState.Timeouts
    }

    /// Writes longer than this are written as slices of it, each a step of progress: a client is a stalled
    /// writer only when it takes less than a slice in the write timeout (64 KiB in 30 s, about 2 KiB/s), and
    /// a large answer costs one tracked write per 64 KiB.
    static let sliceLength = 64 << 10

    private let answers: CachedResultAnswers?
    private let metrics: ServerMetrics
    /// Only ever reached on the connection's event loop, through this handler: no access overlaps.
    @exclusivity(unchecked) private var state: ConnectionState
    private var context: ChannelHandlerContext?
    /// The one check scheduled, and when it runs; a deadline that moved later is found when it runs.
    private var check: (task: Scheduled<Void>, at: NIODeadline)?
    /// A close asked for while bytes were unwritten, done once they are written.
    private var requestedClose: (mode: CloseMode, promise: EventLoopPromise<Void>?)?
    /// The decoder's head held back until its end, a body or the read's end, and whether the result cache
    /// was already asked for it (from its bytes) and had nothing.
    private var heldHead: (head: HTTPRequestHead, lookedUp: Bool)?
    /// Whether the bytes just passed on to the decoder were looked up already, with no result.
    private var nextHeadLookedUp = false
    /// Whether a read went on in this read cycle, on each side: a cycle answered wholly here costs the
    /// handlers behind nothing.
    private var bytesPassedOn = false
    private var partsPassedOn = false
    /// Bytes handed on and not yet written, and how many of them `trove_serve_unwritten_bytes` counts: the
    /// shared gauge is told only of bytes still waiting after a flush, so an answer the kernel takes at once
    /// costs it nothing.
    private var unwrittenBytes = 0
    private var reportedBytes = 0

    init(_ configuration: Configuration) {
        answers = configuration.answers
        metrics = configuration.metrics
        state = ConnectionState(timeouts: configuration.timeouts, now: .now())
    }

    // MARK: - The bytes side

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        rearm()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        check?.task.cancel()
        check = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.task.cancel()
        check = nil
        // The connection is closed, which is what was asked.
        requestedClose?.promise?.succeed(())
        requestedClose = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if state.decoderIsEmpty {
            let head = unwrapInboundIn(data).withUnsafeReadableBytes { PlainRequestHead($0) }
            if let head {
                state.headArrived()
                if let answers, state.mayAnswerExpress {
                    if let answer = answers.answer(to: HitRequest(head)) {
                        answerFromBytes(answer, context: context)
                        return
                    }
                    nextHeadLookedUp = true
                }
            }
            state.passedToDecoder(wholePlainRequest: head != nil)
        }
        bytesPassedOn = true
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard bytesPassedOn else { return }
        bytesPassedOn = false
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Hummingbird's shutdown: close once what was asked is answered and written. A half-close
        // (`ChannelEvent.inputClosed`) goes on: the decoder reads its last, and Hummingbird's close waits here
        // for the unwritten bytes.
        if event is ChannelShouldQuiesceEvent {
            perform(state.quiesce(now: .now()))
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case let .byteBuffer(buffer):
            send(buffer, context: context, promise: promise)
        case .fileRegion:
            track(data, bytes: 0, context: context, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        reportUnwrittenBytes()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode != .input, !state.closeAsked() else {
            context.close(mode: mode, promise: promise)
            return
        }
        guard var earlier = requestedClose else {
            requestedClose = (mode, promise)
            return
        }
        if mode == .all { earlier.mode = .all }
        if let promise {
            if let first = earlier.promise {
                first.futureResult.cascade(to: promise)
            } else {
                earlier.promise = promise
            }
        }
        requestedClose = earlier
    }

    /// Writes a hit's answer read from the client's bytes: the head's bytes, then the kept body.
    private func answerFromBytes(_ answer: ResultAnswer, context: ChannelHandlerContext) {
        guard let answers else { return }
        var head = context.channel.allocator.buffer(capacity: answer.headers.wire.count + 64)
        answer.writeHead(date: answers.date.text, into: &head)
        if let body = answer.body {
            // Written before the body, so the body's completion is the answer's.
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            send(body, context: context, promise: nil)
        } else {
            send(head, context: context, promise: nil)
        }
        context.flush()
        reportUnwrittenBytes()
    }

    /// Writes `buffer` toward the socket in slices of at most `sliceLength`, each tracked.
    private func send(_ buffer: ByteBuffer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        var buffer = buffer
        while buffer.readableBytes > Self.sliceLength, let slice = buffer.readSlice(length: Self.sliceLength) {
            track(wrapOutboundOut(.byteBuffer(slice)), bytes: slice.readableBytes, context: context, promise: nil)
        }
        track(wrapOutboundOut(.byteBuffer(buffer)), bytes: buffer.readableBytes, context: context, promise: promise)
    }

    /// Writes `data` toward the socket and counts it unwritten until it is written.
    private func track(_ data: NIOAny, bytes: Int, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let written = context.eventLoop.makePromise(of: Void.self)
        state.writeQueued(now: .now())
        unwrittenBytes += bytes
        written.futureResult.assumeIsolated().whenComplete { [self] result in
            unwrittenBytes -= bytes
            if reportedBytes > unwrittenBytes { reportUnwrittenBytes() }
            perform(state.writeDone(now: .now()))
            promise?.completeWith(result)
        }
        context.write(data, promise: written)
        rearm()
    }

    /// Brings `trove_serve_unwritten_bytes` to this connection's unwritten bytes.
    private func reportUnwrittenBytes() {
        guard unwrittenBytes != reportedBytes else { return }
        metrics.unwrittenBytes(adding: unwrittenBytes - reportedBytes)
        reportedBytes = unwrittenBytes
    }

    // MARK: - The decoded side

    fileprivate func decodedRead(_ part: HTTPServerRequestPart, data: NIOAny, context: ChannelHandlerContext) {
        switch part {
        case let .head(head):
            state.headHeld()
            heldHead = (head, nextHeadLookedUp)
            nextHeadLookedUp = false
            return
        case .body:
            passOnHeldHead(context: context)
        case .end:
            guard let held = heldHead else { break }
            heldHead = nil
            var lookedUp = held.lookedUp
            if !lookedUp, let answers, state.mayAnswerHit,
                let request = HitRequest(held.head, tracing: answers.tracing != nil)
            {
                lookedUp = true
                if let answer = answers.answer(to: request) {
                    state.headReleased(passedOn: false)
                    context.write(
                        DecodedSide.wrapOutboundOut(.head(answer.responseHead(date: answers.date.text))), promise: nil)
                    if let body = answer.body {
                        context.write(DecodedSide.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                    }
                    context.writeAndFlush(DecodedSide.wrapOutboundOut(.end(nil)), promise: nil)
                    return
                }
            }
            passOn(held.head, lookedUp: lookedUp, context: context)
        }
        partsPassedOn = true
        context.fireChannelRead(data)
    }

    fileprivate func decodedReadComplete(context: ChannelHandlerContext) {
        passOnHeldHead(context: context)
        guard partsPassedOn else { return }
        partsPassedOn = false
        context.fireChannelReadComplete()
    }

    fileprivate func decodedError(_ error: any Error, context: ChannelHandlerContext) {
        // A head the decoder refuses gets no answer but the refusal.
        if heldHead != nil {
            heldHead = nil
            state.headReleased(passedOn: false)
        }
        state.decoderRefused()
        context.fireErrorCaught(error)
    }

    /// Hears of the router's answers as they pass toward the encoder; called once each part has gone on.
    fileprivate func routerWrote(_ part: HTTPServerResponsePart) {
        if case .end = part { perform(state.answerEnded(now: .now())) }
    }

    private func passOnHeldHead(context: ChannelHandlerContext) {
        guard let held = heldHead else { return }
        heldHead = nil
        passOn(held.head, lookedUp: held.lookedUp, context: context)
    }

    /// Passes a head on to the router, marked when the result cache was already asked for it (a mark a
    /// client sent is taken off).
    private func passOn(_ head: HTTPRequestHead, lookedUp: Bool, context: ChannelHandlerContext) {
        var head = head
        head.headers.remove(name: HitRequest.missedField)
        if lookedUp { head.headers.add(name: HitRequest.missedField, value: "1") }
        state.headReleased(passedOn: true)
        partsPassedOn = true
        context.fireChannelRead(DecodedSide.wrapInboundOut(.head(head)))
    }

    // MARK: - Closing and time

    private func perform(_ action: ConnectionState.Action) {
        switch action {
        case .none:
            break
        case .close:
            context?.close(promise: nil)
        case .performRequestedClose:
            if let (mode, promise) = requestedClose {
                requestedClose = nil
                context?.close(mode: mode, promise: promise)
            }
        }
        rearm()
    }

    /// Makes sure a check runs by the state's deadline.
    private func rearm() {
        guard let context, let deadline = state.deadline else { return }
        if let check, check.at <= deadline { return }
        check?.task.cancel()
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        check = (context.eventLoop.scheduleTask(deadline: deadline) { loopBound.value.deadlineCame() }, deadline)
    }

    private func deadlineCame() {
        check = nil
        guard let context else { return }
        switch state.expiry(at: .now()) {
        case .stalledWriter:
            metrics.writeTimedOut()
            context.close(promise: nil)
        case .idle:
            context.close(promise: nil)
        case nil:
            rearm()
        }
    }
}

extension ConnectionHandler {
    /// `ConnectionHandler`'s place right after NIO's request decoder: it holds no state of its own and hands
    /// every part it reads, every error and the router's answers to the handler.
    final class DecodedSide: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart

        private let owner: ConnectionHandler

        init(_ owner: ConnectionHandler) {
            self.owner = owner
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            owner.decodedRead(unwrapInboundIn(data), data: data, context: context)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            owner.decodedReadComplete(context: context)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            owner.decodedError(error, context: context)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            context.write(data, promise: promise)
            owner.routerWrote(unwrapOutboundIn(data))
        }
    }
}
