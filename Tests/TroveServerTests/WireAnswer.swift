import Foundation

/// One HTTP/1.1 answer as it came off the wire, with the value of its `Date` line left out (the only part
/// two answers made a second apart may rightly differ in).
struct WireAnswer: Equatable, CustomStringConvertible {
    var statusLine: String
    /// "name: value" lines in the order they were sent.
    var headerLines: [String]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        let prefix = name.lowercased() + ":"
        return headerLines.first { $0.lowercased().hasPrefix(prefix) }.map {
            String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
        }
    }

    var description: String { ([statusLine] + headerLines).joined(separator: " | ") + " | \(body.count) bytes" }

    /// The first whole answer in `bytes` and how many bytes it took, or nil when more must be read.
    /// `hasBody` is false for an answer to HEAD (its Content-Length describes the GET).
    static func parse(_ bytes: ArraySlice<UInt8>, hasBody: Bool) -> (WireAnswer, Int)? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: terminator) }) else { return nil }
        let lines = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var answer = WireAnswer(
            statusLine: lines[0],
            headerLines: lines.dropFirst().map { $0.lowercased().hasPrefix("date:") ? String($0.prefix(5)) : $0 },
            body: [])
        let bodyStart = end + terminator.count
        let length =
            hasBody && !answer.statusLine.contains(" 304 ") ? Int(answer.header("content-length") ?? "0") ?? 0 : 0
        guard bytes.endIndex - bodyStart >= length else { return nil }
        answer.body = Array(bytes[bodyStart..<bodyStart + length])
        return (answer, bodyStart + length - bytes.startIndex)
    }
}

extension RawConnection {
    /// Reads one answer per entry of `hasBody` (false for HEAD), in order; fails when they do not all come
    /// within `limit`.
    func readAnswers(_ hasBody: [Bool], within limit: Duration = .seconds(20)) async throws -> [WireAnswer] {
        var received: [UInt8] = []
        var answers: [WireAnswer] = []
        var consumed = 0
        let deadline = ContinuousClock.now + limit
        while answers.count < hasBody.count {
            if let (answer, length) = WireAnswer.parse(received[consumed...], hasBody: hasBody[answers.count]) {
                answers.append(answer)
                consumed += length
                continue
            }
            guard ContinuousClock.now < deadline else { throw WireAnswerError.incomplete(answers.count) }
            let (bytes, closed) = await readBytes(forAtMost: .milliseconds(50))
            received += bytes
            if closed, bytes.isEmpty { throw WireAnswerError.incomplete(answers.count) }
        }
        return answers
    }

    /// Reads one answer (with a body) whose first bytes, `start`, were read already; fails when it does not
    /// come whole within `limit`.
    func readAnswer(startingWith start: [UInt8], within limit: Duration) async throws -> WireAnswer {
        var received = start
        let deadline = ContinuousClock.now + limit
        while true {
            if let (answer, _) = WireAnswer.parse(received[...], hasBody: true) { return answer }
            guard ContinuousClock.now < deadline else { throw WireAnswerError.incomplete(0) }
            let (bytes, closed) = await readBytes(forAtMost: .milliseconds(50))
            received += bytes
            if closed, bytes.isEmpty { throw WireAnswerError.cut(received: received.count) }
        }
    }

    /// Sends one request and reads its answer.
    func exchange(
        _ path: String, method: String = "GET", headers: [String: String] = [:]
    ) async throws -> WireAnswer {
        let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
        try send("\(method) \(path) HTTP/1.1\r\nHost: trove.test\r\n\(lines)\r\n")
        return try await readAnswers([method != "HEAD"])[0]
    }
}

enum WireAnswerError: Error {
    /// The connection ended, or the time ran out, after this many whole answers.
    case incomplete(Int)
    /// The connection ended inside an answer, after this many bytes of it.
    case cut(received: Int)
}
