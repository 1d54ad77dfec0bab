import NIOCore

/// For a handler that answers some reads itself and passes the rest on: the handlers behind hear of a read
/// cycle's end only when a read went on to them in it, so a cycle answered wholly in front costs them
/// nothing.
struct ForwardedReads {
    private var sinceReadComplete = false

    /// Passes `data` on to the handlers behind.
    mutating func pass(_ data: NIOAny, from context: ChannelHandlerContext) {
        sinceReadComplete = true
        context.fireChannelRead(data)
    }

    /// Passes the read cycle's end on, if a read went on in it.
    mutating func completeRead(from context: ChannelHandlerContext) {
        guard sinceReadComplete else { return }
        sinceReadComplete = false
        context.fireChannelReadComplete()
    }
}
