import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The HTTP/1 connections of `trove serve`: Hummingbird's HTTP/1 channel (NIO's HTTP/1 codec, the HTTP
/// types codec, Hummingbird's request loop) with `ConnectionHandler` in place of Hummingbird's connection
/// state handler, installed through Hummingbird's supported hook for a channel of one's own
/// (`HTTPServerBuilder`). The pipeline, nearest the socket first: `ConnectionHandler`, NIO's response encoder
/// and request decoder, the handler's `DecodedSide`, `HTTP1ToHTTPServerCodec`, and the async channel's
/// handler.
struct TroveHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let connection: ConnectionHandler.Configuration

    /// The builder `Application` takes: it checks, before the server listens, that a connection's handlers
    /// install, and throws when they do not, so the server never runs without its timeouts.
    static func builder(connection: ConnectionHandler.Configuration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            try checkInstallation(connection: connection)
            return TroveHTTP1Channel(responder: responder, connection: connection)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try Self.install(on: channel.pipeline.syncOperations, connection: connection)
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }

    /// Adds one connection's handlers, nearest the socket first.
    static func install(
        on pipeline: ChannelPipeline.SynchronousOperations, connection: ConnectionHandler.Configuration
    ) throws {
        let handler = ConnectionHandler(connection)
        try pipeline.addHandler(handler)
        // Hummingbird's HTTP/1 settings: its decoder limits, no pipelining assistance (its request loop
        // answers in order), errors answered by its loop, headers already checked by HTTP types.
        var limits = NIOHTTPDecoderLimitConfiguration()
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        limits.maxHeaderFieldSize = decoder.maxHeaderFieldSize
        limits.maxHeaderListSize = decoder.maxHeaderListSize
        limits.maxHeaderFieldCount = decoder.maxHeaderFieldCount
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
            withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
        try pipeline.addHandler(ConnectionHandler.DecodedSide(handler))
        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
    }

    /// Installs a connection's handlers on a channel of no socket and reads a request through them: it must
    /// come out of the pipeline's end as Hummingbird reads it, through the connection handler and the
    /// decoder.
    static func checkInstallation(connection: ConnectionHandler.Configuration) throws {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        var checked = connection
        checked.answers = nil
        do {
            try install(on: channel.pipeline.syncOperations, connection: checked)
            _ = try channel.pipeline.syncOperations.context(handlerType: ConnectionHandler.self)
            _ = try channel.pipeline.syncOperations.context(handlerType: ConnectionHandler.DecodedSide.self)
            try channel.writeInbound(ByteBuffer(string: "GET /check HTTP/1.1\r\nHost: trove\r\n\r\n"))
            guard case let .head(head) = try channel.readInbound(as: HTTPRequestPart.self), head.path == "/check"
            else { throw ServerConfigurationError("a request did not come through the connection's handlers") }
        } catch let error as ServerConfigurationError {
            throw error
        } catch {
            throw ServerConfigurationError("the connection's handlers cannot be installed: \(error)")
        }
    }
}
