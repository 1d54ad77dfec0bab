import Hummingbird

/// The fixture server's request context: Hummingbird's basic one plus the client's port, which tells a test
/// which requests came on one connection (`RecordedRequest.clientPort`).
struct ConnectionContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let clientPort: Int?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientPort = source.channel.remoteAddress?.port
    }
}
