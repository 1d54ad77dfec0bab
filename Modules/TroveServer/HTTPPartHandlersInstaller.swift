import NIOCore
import NIOHTTP1

/// Hummingbird adds its extra handlers after its HTTP/1 codec, where parts are already its own types; this
/// one puts handlers that read NIO's HTTP/1 parts right after NIO's request decoder instead, in the order
/// given (the first nearest the decoder), and otherwise passes everything on untouched.
final class HTTPPartHandlersInstaller: ChannelInboundHandler, RemovableChannelHandler {
    /// Never unwrapped: every part is passed on as it came.
    typealias InboundIn = Any

    private let makeHandlers: () -> [any ChannelHandler]

    /// `makeHandlers` is called once per connection, for that connection's handlers.
    init(makeHandlers: @escaping () -> [any ChannelHandler]) {
        self.makeHandlers = makeHandlers
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let operations = context.pipeline.syncOperations
        guard var previous = try? operations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self).handler
        else { return }
        for handler in makeHandlers() {
            guard (try? operations.addHandler(handler, position: .after(previous))) != nil else { return }
            previous = handler
        }
    }
}
