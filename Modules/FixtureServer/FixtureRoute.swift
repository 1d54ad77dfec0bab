import Foundation

extension FixtureServer {
    /// What the server answers for one path.
    public indirect enum Route: Sendable {
        /// 200 with the bytes, an ETag and a Last-Modified; a matching If-None-Match gets 304.
        case file(Data, contentType: String)
        /// A bare status with a short text body.
        case status(Int)
        /// 200 with the request's method, a space and its body, as text: shows what a client sent.
        case echo
        /// The same as `file`, after a delay.
        case delayed(Data, contentType: String, delay: Duration)
        /// Any status with these headers and body, e.g. 429 with Retry-After, or 503.
        case response(status: Int, headers: [String: String], body: Data)
        /// A redirect to `location`: a path on this server or a full URL.
        case redirect(to: String, status: Int = 302)
        /// `hops` redirects in a row (through `<path>?hop=N`), the last one to `to` (a path or a full URL).
        case redirectChain(hops: Int, to: String)
        /// Announces `announced` bytes in Content-Length, sends `data`, then closes the connection when that
        /// was less than announced (a client must see a short body, not wait).
        case wrongLength(Data, announced: Int)
        /// Chunked (no Content-Length): sends the first `after` bytes of `data`, then closes the connection.
        case cutMidBody(Data, after: Int)
        /// 200 with Content-Length, sent `chunkSize` bytes at a time with `interval` between chunks.
        case slowBody(Data, chunkSize: Int, interval: Duration)
        /// 200 with Content-Length: sends the first `pauseAfter` bytes, waits at `gate`, then sends the rest,
        /// so a test can see a partial body arrive (progress) before letting the fetch finish.
        case pausedBody(Data, pauseAfter: Int, gate: FixtureGate)
        /// A resource for revalidation: ETag from the content, Last-Modified from `lastModified`; 304 when
        /// If-None-Match matches, or (without If-None-Match) when If-Modified-Since is not older. Change it
        /// with `setRoute` to make it "changed".
        case conditional(Data, contentType: String, lastModified: Date)
        /// Like `file`, but each request waits at `gate` until the test opens it.
        case gated(Data, contentType: String, gate: FixtureGate)
        /// The n-th request to the path (counted since this route was set) gets the n-th route; the last
        /// one answers every request after that.
        case sequence([Route])
        /// 401 with a WWW-Authenticate challenge unless the request carries these Basic credentials.
        case basicAuth(user: String, password: String, Route)
        /// The inner route's response with these headers added (Cache-Control, Expires, ...), 304s included.
        case withHeaders([String: String], Route)
        /// The inner route's response with one `Set-Cookie` header for each string, in order (a dictionary of
        /// headers can hold only one).
        case settingCookies([String], Route)
        /// The inner route's response with these header lines appended in order; a name may repeat (two
        /// `Vary` or `Expires` lines, say), and a 304's fields come through too.
        case withFieldLines([(name: String, value: String)], Route)
        /// Content negotiation: the first choice whose text the request's `header` contains answers, else
        /// `otherwise`; each answer says `Vary: <header>`.
        case negotiated(header: String, choices: [(containing: String, route: Route)], otherwise: Route)

        /// Gates inside this route, so stopping the server can release requests held at them.
        var gates: [FixtureGate] {
            switch self {
            case let .gated(_, _, gate), let .pausedBody(_, _, gate): [gate]
            case let .sequence(routes): routes.flatMap(\.gates)
            case let .basicAuth(_, _, inner), let .withHeaders(_, inner), let .settingCookies(_, inner),
                let .withFieldLines(_, inner):
                inner.gates
            case let .negotiated(_, choices, otherwise): choices.flatMap(\.route.gates) + otherwise.gates
            default: []
            }
        }
    }
}
