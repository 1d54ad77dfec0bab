import NIOCore
import Testing

@testable import TroveRedis

@Suite struct RESPParserTests {
    /// Every reply kind, nested arrays and both nulls, as one byte stream.
    static let stream = Array(
        ("+OK\r\n" + "-ERR wrong number of arguments\r\n" + ":-42\r\n" + ":0\r\n" + "$5\r\nhe\r\nl\r\n"
            + "$0\r\n\r\n" + "$-1\r\n" + "*-1\r\n" + "*0\r\n"
            + "*3\r\n*2\r\n:1\r\n$1\r\na\r\n$-1\r\n*1\r\n*0\r\n" + "+after\r\n").utf8)

    static let expected: [RESPValue] = [
        .simpleString("OK"), .error("ERR wrong number of arguments"), .integer(-42), .integer(0),
        .bulk("he\r\nl"), .bulk(""), .bulkString(nil), .array(nil), .array([]),
        .array([.array([.integer(1), .bulk("a")]), .bulkString(nil), .array([.array([])])]),
        .simpleString("after")
    ]

    /// Feeds `chunks` one after another, parsing whatever is complete after each.
    static func parse(chunks: [ArraySlice<UInt8>]) throws -> [RESPValue] {
        var buffer = ByteBuffer()
        var values: [RESPValue] = []
        for chunk in chunks {
            buffer.writeBytes(chunk)
            while let value = try RESPParser.parse(&buffer) { values.append(value) }
        }
        #expect(buffer.readableBytes == 0)
        return values
    }

    @Test func parsesTheWholeStreamAtOnce() throws {
        #expect(try Self.parse(chunks: [Self.stream[...]]) == Self.expected)
    }

    @Test func parsesTheStreamSplitAtEveryPosition() throws {
        for split in 0...Self.stream.count {
            let values = try Self.parse(chunks: [Self.stream[..<split], Self.stream[split...]])
            #expect(values == Self.expected, "split at \(split)")
        }
    }

    @Test func parsesTheStreamSplitAtEveryPairOfPositions() throws {
        let count = Self.stream.count
        for first in stride(from: 0, through: count, by: 3) {
            for second in first...count {
                let values = try Self.parse(chunks: [
                    Self.stream[..<first], Self.stream[first..<second],
                    Self.stream[second...]
                ])
                #expect(values == Self.expected, "split at \(first) and \(second)")
            }
        }
    }

    @Test func parsesTheStreamOneByteAtATime() throws {
        let chunks = Self.stream.indices.map { Self.stream[$0...$0] }
        #expect(try Self.parse(chunks: chunks) == Self.expected)
    }

    @Test func anIncompleteReplyConsumesNothing() throws {
        var buffer = ByteBuffer(string: "*2\r\n$3\r\nabc\r\n$2\r\nx")
        #expect(try RESPParser.parse(&buffer) == nil)
        #expect(buffer.readerIndex == 0)
        buffer.writeString("y\r\n")
        #expect(try RESPParser.parse(&buffer) == .array([.bulk("abc"), .bulk("xy")]))
    }

    @Test func bulkStringsAreBinarySafe() throws {
        let payload = (0...255).map(UInt8.init) + Array("\r\n$-1\r\n".utf8)
        var buffer = ByteBuffer(string: "$\(payload.count)\r\n")
        buffer.writeBytes(payload)
        buffer.writeString("\r\n")
        let value = try RESPParser.parse(&buffer)
        #expect(value?.bytes == payload)
    }

    @Test(arguments: [
        "?what\r\n",  // unknown type byte
        "$-2\r\n",  // negative length other than -1
        "$3\r\nabcd\r\n",  // payload longer than announced
        ":12a\r\n",  // not a number
        ":\r\n",  // empty number
        "*x\r\n",  // bad array count
        "+OK\rX",  // CR without LF
        ":99999999999999999999\r\n"  // overflows 64 bits
    ])
    func rejectsMalformedReplies(_ text: String) {
        var buffer = ByteBuffer(string: text)
        #expect(throws: RESPParser.ProtocolError.self) { try RESPParser.parse(&buffer) }
    }

    @Test func rejectsAnEndlessLine() {
        var buffer = ByteBuffer(string: "+" + String(repeating: "a", count: RESPParser.maxLineLength + 10))
        #expect(throws: RESPParser.ProtocolError.self) { try RESPParser.parse(&buffer) }
    }

    @Test func rejectsArraysNestedTooDeep() {
        var buffer = ByteBuffer(string: String(repeating: "*1\r\n", count: RESPParser.maxDepth + 2) + ":1\r\n")
        #expect(throws: RESPParser.ProtocolError.self) { try RESPParser.parse(&buffer) }
    }

    @Test func encodesCommandsAsArraysOfBulkStrings() {
        var buffer = ByteBuffer()
        RESPCommand.encode(
            [
                ByteBuffer(string: "SET"), ByteBuffer(string: "k y"), ByteBuffer(bytes: [0, 13, 10]),
                ByteBuffer()
            ], into: &buffer)
        #expect(
            Array(buffer.readableBytesView)
                == Array("*4\r\n$3\r\nSET\r\n$3\r\nk y\r\n$3\r\n".utf8) + [0, 13, 10] + Array("\r\n$0\r\n\r\n".utf8))
    }

    @Test func encodedCommandsParseBackAsTheSameArray() throws {
        let arguments = [ByteBuffer(string: "ECHO"), ByteBuffer(bytes: (0...255).map(UInt8.init)), ByteBuffer()]
        var buffer = ByteBuffer()
        RESPCommand.encode(arguments, into: &buffer)
        #expect(try RESPParser.parse(&buffer) == .array(arguments.map { .bulkString($0) }))
    }
}
