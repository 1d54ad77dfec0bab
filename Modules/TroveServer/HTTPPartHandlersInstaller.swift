import NIOCore
import NIOHTTP1

/// Hummingbird adds its extra handlers after its HTTP/1 codec, where parts are already its own types; this
/// one puts a connection's handlers where they read what they need instead: those that read the client's
/// bytes ahead of NIO's HTTP/1 codec, and those that read NIO's HTTP/1 parts right after its request decoder,
/// each in the order given (the first nearest the socket). It otherwise passes everything on untouched.
final class HTTPPartHandlersInstaller: ChannelInboundHandler, RemovableChannelHandler {
    /// Never unwrapped: every part is passed on as it came.
    typealias InboundIn = Any

    /// One connection's handlers: ahead of the codec, and after the request decoder.
    typealias Handlers = (aheadOfCodec: [any ChannelHandler], afterDecoder: [any ChannelHandler])

    private let makeHandlers: () -> Handlers

    /// `makeHandlers` is called once per connection, for that connection's handlers.
    init(makeHandlers: @escaping () -> Handlers) {
        self.makeHandlers = makeHandlers
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let operations = context.pipeline.syncOperations
        guard let encoder = try? operations.context(handlerType: HTTPResponseEncoder.self).handler,
            let decoder = try? operations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self).handler
        else { return }
        let handlers = makeHandlers()
        var previous = decoder
        for handler in handlers.afterDecoder {
            guard (try? operations.addHandler(handler, position: .after(previous))) != nil else { return }
            previous = handler
        }
        // Only once those are in: a handler ahead may rely on them (`ExpressHitHandler` on the timeout's
        // count of requests in progress).
        for handler in handlers.aheadOfCodec {
            guard (try? operations.addHandler(handler, position: .before(encoder))) != nil else { return }
        }
    }
}
