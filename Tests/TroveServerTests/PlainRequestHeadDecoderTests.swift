import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import TroveServer

/// Whatever `PlainRequestHead` reads, NIO's request decoder (the one `trove serve` runs) reads alike: one
/// head and its end, no body, no error, the same method, target and version, keep-alive, and the same
/// values for the fields a hit's answer reads. Checked on plain requests, on every one-byte change to them
/// (each byte replaced by, or preceded by, each of the 256 byte values, or deleted), and on many heads with
/// several such changes at once. `ConnectionHandler` answers a head the scanner reads without the decoder,
/// so this is what keeps it from answering a request the decoder would refuse or read otherwise.
@Suite struct PlainRequestHeadDecoderTests {
    static let seeds = [
        "GET /sig/rs:fit:300:300/plain/http://h/a.jpg@webp?x=1 HTTP/1.1\r\nHost: h\r\nAccept: image/webp,*/*\r\n"
            + "If-None-Match: \"e1\"\r\nConnection: keep-alive\r\nSec-CH-DPR: 2\r\n\r\n",
        "HEAD /a HTTP/1.1\r\nIf-Modified-Since: Sun, 29 Nov 2026 10:00:00 GMT\r\nWidth: 300\r\nDPR: 1.5\r\n"
            + "Sec-CH-Width: 600\r\nAccept: a\r\naccept: b\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: \u{E9}\r\n\r\n"
    ].map { Array($0.utf8) }

    @Test func everyOneByteChangeTheScannerReadsTheDecoderReadsAlike() {
        var inputs: [[UInt8]] = []
        for seed in Self.seeds {
            inputs.append(seed)
            for index in seed.indices {
                var deleted = seed
                deleted.remove(at: index)
                inputs.append(deleted)
                for value in 0...255 {
                    var replaced = seed
                    replaced[index] = UInt8(value)
                    inputs.append(replaced)
                    var inserted = seed
                    inserted.insert(UInt8(value), at: index)
                    inputs.append(inserted)
                }
            }
        }
        let (read, disagreements) = Self.check(inputs)
        #expect(disagreements.isEmpty, "\(disagreements)")
        // The changes the scanner reads (inside values, targets and unknown names) are many: the check is not
        // empty.
        #expect(read > 50_000, "read \(read) of \(inputs.count)")
    }

    /// Heads with two to five changes at once (replacements, insertions and deletions of any byte, anywhere),
    /// drawn from a fixed seed so every run checks the same ones.
    @Test func manyHeadsWithSeveralChangesTheScannerReadsTheDecoderReadsAlike() {
        var random = SplitMix64(seed: 0x7E57_C0DE)
        var inputs: [[UInt8]] = []
        for round in 0..<100_000 {
            var input = Self.seeds[round % Self.seeds.count]
            for _ in 0..<(2 + random.next(below: 4)) {
                let index = random.next(below: input.count)
                let value = UInt8(random.next(below: 256))
                switch random.next(below: 3) {
                case 0: input[index] = value
                case 1: input.insert(value, at: index)
                default: if input.count > 1 { input.remove(at: index) }
                }
            }
            inputs.append(input)
        }
        let (read, disagreements) = Self.check(inputs)
        #expect(disagreements.isEmpty, "\(disagreements)")
        #expect(read > 8_000, "read \(read) of \(inputs.count)")
    }

    /// How many of `inputs` the scanner reads, and the first ten the decoder reads otherwise.
    static func check(_ inputs: [[UInt8]]) -> (read: Int, disagreements: [String]) {
        var read = 0
        var disagreements: [String] = []
        let decoder = ReusedDecoder()
        for input in inputs {
            guard let head = input.withUnsafeBytes({ PlainRequestHead($0) }) else { continue }
            read += 1
            if let disagreement = Self.disagreement(head, input, decoder: decoder), disagreements.count < 10 {
                disagreements.append("\(String(decoding: input, as: UTF8.self).debugDescription): \(disagreement)")
            }
        }
        return (read, disagreements)
    }

    /// The same, for the requests the scanner's own tests use and for close-like fields.
    @Test(arguments: [
        "GET /a HTTP/1.1\r\nProxy-Connection: close\r\n\r\n",
        "GET /a HTTP/1.1\r\nConnection: keep-alive\r\nProxy-Connection: close\r\n\r\n",
        "GET /a HTTP/1.1\r\nKeep-Alive: timeout=5\r\n\r\n",
        "GET /a HTTP/1.1\r\nConnection: Keep-Alive\r\nConnection: keep-alive\r\n\r\n",
        "GET /a#b HTTP/1.1\r\n\r\n",
        "GET /a\"<>{}|^` HTTP/1.1\r\n\r\n",
        "GET /a HTTP/1.1\r\nAccept: \t image/png \t\r\n\r\n"
    ])
    func chosenRequestsTheScannerReadsTheDecoderReadsAlike(text: String) {
        let input = Array(text.utf8)
        guard let head = input.withUnsafeBytes({ PlainRequestHead($0) }) else { return }
        #expect(Self.disagreement(head, input) == nil)
    }

    /// How NIO's decoder reads `input` differently from `head`, or nil when it reads it alike.
    static func disagreement(
        _ head: PlainRequestHead, _ input: [UInt8], decoder: ReusedDecoder = ReusedDecoder()
    ) -> String? {
        let (parts, failure) = decoder.decode(input)
        if let failure { return "the decoder refused it: \(failure)" }
        var heads: [HTTPRequestHead] = []
        var bodies = 0
        var ends = 0
        for part in parts {
            switch part {
            case let .head(decoded): heads.append(decoded)
            case .body: bodies += 1
            case .end: ends += 1
            }
        }
        guard heads.count == 1, bodies == 0, ends == 1, let decoded = heads.first else {
            return "\(heads.count) heads, \(bodies) bodies, \(ends) ends"
        }
        if decoded.method != (head.isHead ? .HEAD : .GET) { return "method \(decoded.method)" }
        if decoded.uri != head.target { return "target \(decoded.uri.debugDescription)" }
        if decoded.version != .http1_1 { return "version \(decoded.version)" }
        if !decoded.isKeepAlive { return "not keep-alive" }
        let fields: [(String, String?)] = [
            ("accept", head.accept), ("if-none-match", head.ifNoneMatch),
            ("if-modified-since", head.ifModifiedSince), ("sec-ch-dpr", head.secCHDPR), ("dpr", head.dpr),
            ("sec-ch-width", head.secCHWidth), ("width", head.width)
        ]
        for (name, value) in fields {
            let values = decoded.headers[name].map(Self.trimmingTrailingWhitespace)
            let expected = values.isEmpty ? nil : values.joined(separator: ", ")
            if expected != value { return "\(name): \(expected.debugDescription) against \(value.debugDescription)" }
        }
        return nil
    }

    private static func trimmingTrailingWhitespace(_ value: String) -> String {
        var value = Substring(value)
        while value.last == " " || value.last == "\t" { value = value.dropLast() }
        return String(value)
    }
}

/// NIO's server pipeline on a channel of no socket, used for one input after another while each decodes as
/// one whole request (which leaves the decoder as new), and made anew after any other outcome.
final class ReusedDecoder {
    private var channel = EmbeddedChannel()
    private let collector = PartCollector()
    private var isFresh = false

    /// The parts the pipeline decodes from `input`, and its error if it refused it.
    func decode(_ input: [UInt8]) -> (parts: [HTTPServerRequestPart], failure: (any Error)?) {
        collector.parts = []
        collector.failure = nil
        do {
            if !isFresh {
                _ = try? channel.finish()
                channel = EmbeddedChannel()
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                    withPipeliningAssistance: false, withErrorHandling: false)
                try channel.pipeline.syncOperations.addHandler(collector)
                isFresh = true
            }
            var buffer = channel.allocator.buffer(capacity: input.count)
            buffer.writeBytes(input)
            try channel.writeInbound(buffer)
        } catch {
            collector.failure = error
        }
        let parts = collector.parts
        var whole = false
        if collector.failure == nil, parts.count == 2, case .head = parts[0], case .end = parts[1] { whole = true }
        isFresh = whole
        return (parts, collector.failure)
    }
}

/// A small, fixed pseudo-random sequence (SplitMix64), so the multi-change heads are the same every run.
private struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((value ^ (value >> 31)) % UInt64(bound))
    }
}

/// Keeps the parts and the first error that reach the end of the pipeline.
private final class PartCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    var parts: [HTTPServerRequestPart] = []
    var failure: (any Error)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        parts.append(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil { failure = error }
    }
}
