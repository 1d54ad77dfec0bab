import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import TroveServer

/// Whatever `PlainRequestHead` reads, NIO's request decoder (the one `trove serve` runs) reads alike: one
/// head and its end, no body, no error, the same method, target and version, keep-alive, and the same
/// values for the fields a hit's answer reads. Checked on plain requests and on every one-byte change to
/// them: each byte replaced by, or preceded by, a byte that matters to HTTP's syntax, or deleted.
@Suite struct PlainRequestHeadDecoderTests {
    static let seeds = [
        "GET /sig/rs:fit:300:300/plain/http://h/a.jpg@webp?x=1 HTTP/1.1\r\nHost: h\r\nAccept: image/webp,*/*\r\n"
            + "If-None-Match: \"e1\"\r\nConnection: keep-alive\r\nSec-CH-DPR: 2\r\n\r\n",
        "HEAD /a HTTP/1.1\r\nIf-Modified-Since: Sun, 29 Nov 2026 10:00:00 GMT\r\nWidth: 300\r\nDPR: 1.5\r\n"
            + "Sec-CH-Width: 600\r\nAccept: a\r\naccept: b\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: \u{E9}\r\n\r\n"
    ]
    /// Bytes HTTP's grammar treats specially, and ordinary ones for contrast.
    static let probes: [UInt8] = [
        0x00, 0x01, 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x23, 0x25, 0x28, 0x2C, 0x2F, 0x3A, 0x3F, 0x41, 0x5C, 0x61,
        0x7F, 0x80, 0xFF
    ]

    @Test func everyOneByteChangeTheScannerReadsTheDecoderReadsAlike() {
        var inputs: [[UInt8]] = []
        for seed in Self.seeds.map({ Array($0.utf8) }) {
            inputs.append(seed)
            for index in seed.indices {
                var deleted = seed
                deleted.remove(at: index)
                inputs.append(deleted)
                for probe in Self.probes {
                    var replaced = seed
                    replaced[index] = probe
                    inputs.append(replaced)
                    var inserted = seed
                    inserted.insert(probe, at: index)
                    inputs.append(inserted)
                }
            }
        }
        var read = 0
        var disagreements: [String] = []
        for input in inputs {
            guard let head = input.withUnsafeBytes({ PlainRequestHead($0) }) else { continue }
            read += 1
            if let disagreement = Self.disagreement(head, input), disagreements.count < 10 {
                disagreements.append("\(String(decoding: input, as: UTF8.self).debugDescription): \(disagreement)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
        // The changes the scanner reads (inside values, targets and unknown names) are many: the check is not
        // empty.
        #expect(read > 1_000, "read \(read) of \(inputs.count)")
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
    static func disagreement(_ head: PlainRequestHead, _ input: [UInt8]) -> String? {
        let (parts, failure) = decoded(input)
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

    /// The parts NIO's server pipeline decodes from `input`, and its error if it refused it.
    static func decoded(_ input: [UInt8]) -> (parts: [HTTPServerRequestPart], failure: (any Error)?) {
        let channel = EmbeddedChannel()
        let collector = PartCollector()
        do {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false)
            try channel.pipeline.syncOperations.addHandler(collector)
            var buffer = channel.allocator.buffer(capacity: input.count)
            buffer.writeBytes(input)
            try channel.writeInbound(buffer)
        } catch {
            collector.failure = error
        }
        _ = try? channel.finish()
        return (collector.parts, collector.failure)
    }

    private static func trimmingTrailingWhitespace(_ value: String) -> String {
        var value = Substring(value)
        while value.last == " " || value.last == "\t" { value = value.dropLast() }
        return String(value)
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
