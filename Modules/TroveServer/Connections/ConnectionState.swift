import NIOCore

/// What one connection is doing, as `ConnectionHandler` sees it: the requests passed on to the router and
/// not yet answered, the writes not yet on the socket, whether it waits for a request head and since when,
/// and whether it is to close. Every decision the handler makes (may a hit be answered here, when does the
/// connection time out, when may a close go ahead) is read from this one value.
///
/// Time counts from completed writes: the wait for the next request starts when the last byte of an answer
/// has been written, and while bytes are waiting to be written, a client that takes none of them for the
/// write timeout is a stalled writer.
struct ConnectionState {
    /// How long a connection may wait for each thing.
    struct Timeouts {
        /// From the connection's start to its first whole request head.
        var head: TimeAmount
        /// From the last byte of an answer to the next whole request head.
        var keepAlive: TimeAmount
        /// With bytes waiting to be written, the longest time none of them is.
        var write: TimeAmount
    }

    /// Why a connection is closed when its deadline passes.
    enum Expiry: Equatable {
        /// No whole request head came in time (the head or the keep-alive timeout).
        case idle
        /// The client took no bytes for the write timeout.
        case stalledWriter
    }

    /// What the handler must do after an event.
    enum Action: Equatable {
        case none
        /// Close the connection: it was told to quiesce and has nothing left to answer or write.
        case close
        /// Go ahead with the close asked for while writes were pending: they are written now.
        case performRequestedClose
    }

    let timeouts: Timeouts
    /// Requests passed on to the router whose answers have not ended.
    private(set) var atRouter = 0
    /// Writes handed to the socket and not yet written (`ConnectionHandler` tracks each).
    private(set) var unwritten = 0
    /// When a write last completed, or the first of the unwritten ones was handed on.
    private var lastProgress: NIODeadline
    /// While the connection waits for a whole request head: since when, and for how long at most.
    private var waiting: (since: NIODeadline, limit: TimeAmount)?
    /// Request heads the decoder read that are held back until it is known that it takes them whole.
    private(set) var heldHeads = 0
    /// Whether every read passed on to the decoder was whole plain requests, so it holds no bytes now.
    private(set) var decoderIsEmpty = true
    /// Whether the decoder refused what it read; Hummingbird answers that 400 and closes.
    private(set) var decoderFailed = false
    /// Whether the server is shutting down: the connection closes once nothing is left to answer or write.
    private(set) var quiescing = false
    /// Whether a close was asked for while writes were pending.
    private(set) var closeRequested = false
    /// Whether a close of the output or of the connection was asked for: nothing more is answered here.
    private(set) var closing = false

    init(timeouts: Timeouts, now: NIODeadline) {
        self.timeouts = timeouts
        lastProgress = now
        waiting = (now, timeouts.head)
    }

    /// Whether a result-cache hit may be answered here, ahead of the router: no answer of any kind is
    /// pending (none at the router, no bytes unwritten), so an answer sent now is in order, and the
    /// connection is not failing, shutting down or closing.
    var mayAnswerHit: Bool {
        atRouter == 0 && unwritten == 0 && !decoderFailed && !quiescing && !closing
    }

    /// As `mayAnswerHit`, for a hit read from the client's bytes: also only while the decoder holds none
    /// and holds back no head, so nothing it reads later can have come first.
    var mayAnswerExpress: Bool { mayAnswerHit && decoderIsEmpty && heldHeads == 0 }

    /// A whole request head came: the wait for one ends.
    mutating func headArrived() {
        waiting = nil
    }

    /// Bytes went on to the decoder: a whole plain request leaves it empty, anything else may not.
    mutating func passedToDecoder(wholePlainRequest: Bool) {
        if !wholePlainRequest { decoderIsEmpty = false }
    }

    /// The decoder read a head; it is held back until its end, a body or the read's end.
    mutating func headHeld() {
        heldHeads += 1
        waiting = nil
    }

    /// A held head was answered here or dropped (`passedOn` says whether it went on to the router).
    mutating func headReleased(passedOn: Bool) {
        heldHeads = max(0, heldHeads - 1)
        if passedOn { atRouter += 1 }
    }

    /// The decoder refused what it read: no more hits are answered ahead of it on this connection.
    mutating func decoderRefused() {
        decoderFailed = true
    }

    /// The router's answer to a request passed on has ended.
    mutating func answerEnded(now: NIODeadline) -> Action {
        atRouter = max(0, atRouter - 1)
        return settle(now: now)
    }

    /// A write was handed on to the socket.
    mutating func writeQueued(now: @autoclosure () -> NIODeadline) {
        if unwritten == 0 { lastProgress = now() }
        unwritten += 1
    }

    /// A write handed on has been written (or failed, the connection closing).
    mutating func writeDone(now: NIODeadline) -> Action {
        unwritten = max(0, unwritten - 1)
        lastProgress = now
        return settle(now: now)
    }

    /// The server is shutting down.
    mutating func quiesce(now: NIODeadline) -> Action {
        quiescing = true
        return settle(now: now)
    }

    /// A close (of the output or of the whole connection) was asked for; true when it may go ahead now,
    /// false when it waits for the unwritten bytes.
    mutating func closeAsked() -> Bool {
        closing = true
        guard unwritten > 0 else { return true }
        closeRequested = true
        return false
    }

    /// When the connection's deadline is: the write timeout from the last progress while bytes wait, else
    /// the head or keep-alive timeout from when it began to wait; nil while the router is answering.
    var deadline: NIODeadline? {
        if unwritten > 0 { return lastProgress + timeouts.write }
        if let waiting { return waiting.since + waiting.limit }
        return nil
    }

    /// Why the connection must close at `now`, or nil.
    func expiry(at now: NIODeadline) -> Expiry? {
        guard let deadline, deadline <= now else { return nil }
        return unwritten > 0 ? .stalledWriter : .idle
    }

    /// After an answer ended or a write completed: once the bytes are written a close asked for goes ahead;
    /// once nothing is left to answer either, a quiescing connection closes and any other starts waiting for
    /// its next request.
    private mutating func settle(now: NIODeadline) -> Action {
        guard unwritten == 0 else { return .none }
        if closeRequested {
            closeRequested = false
            return .performRequestedClose
        }
        guard atRouter == 0, heldHeads == 0 else { return .none }
        if quiescing { return .close }
        waiting = (now, timeouts.keepAlive)
        return .none
    }
}
