import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveJPEG

/// A planar decode fed its body in pieces (`JPEGDecoder.makePlanarStream`): what it delivers is the whole
/// file's decode, rows arrive while the body does, and a body that ends early or badly fails as a whole file would.
@Suite struct JPEGPlanarStreamTests {
    typealias Collector = JPEGPlanarTests.PlaneCollector

    static let files = [
        "coffee-444", "coffee-422", "coffee-420", "chelsea-420-progressive", "chelsea-420-restart", "tiny-17x9",
        "one-1x1", "large-1001x667"
    ]

    /// Feeds `data` to `stream` `piece` bytes at a time, the last piece as complete; every call's answer.
    static func feed(_ data: Data, in piece: Int, to stream: any PlanarStream) throws -> [PlanarStreamProgress] {
        var answers: [PlanarStreamProgress] = []
        var start = data.startIndex
        while data.endIndex - start > piece {
            answers.append(try stream.advance(data[start..<start + piece], isComplete: false))
            start += piece
        }
        answers.append(try stream.advance(data[start...], isComplete: true))
        return answers
    }

    static func wholeDecode(_ data: Data, options: DecodingOptions = DecodingOptions()) throws -> Collector {
        let whole = Collector()
        #expect(try JPEGDecoder().decodePlanes(data, options: options, accepts: { _ in true }, into: whole))
        return whole
    }

    /// Each sampling, a progressive file, a restart marker every MCU row and odd sizes: piece by piece, from a
    /// byte at a time up, the same header and the same samples as the whole file.
    @Test(arguments: files, [1, 251, 4096])
    func piecesDecodeAsTheWholeFile(_ name: String, piece: Int) throws {
        let data = try JPEGPlanarTests.fixture(name)
        let whole = try Self.wholeDecode(data)
        let streamed = Collector()
        let stream = JPEGDecoder().makePlanarStream(options: DecodingOptions(), accepts: { _ in true }, into: streamed)
        let answers = try Self.feed(data, in: piece, to: stream)
        #expect(answers.last == .finished)
        #expect(answers.dropLast().allSatisfy { $0 == .needsMore || $0 == .finished })
        #expect(streamed.header != nil && streamed.header == whole.header)
        #expect(!streamed.planes[0].isEmpty && streamed.planes == whole.planes)
    }

    /// Between pieces it holds only the bytes libjpeg will read again, never the body so far: less than a
    /// piece's worth, whichever way the file is coded.
    @Test(arguments: ["large-1001x667", "chelsea-420-progressive", "chelsea-420-restart"])
    func onlyTheUnreadBytesAreHeld(_ name: String) throws {
        let data = try JPEGPlanarTests.fixture(name)
        let stream = JPEGPlanarStream(
            decoder: JPEGDecoder(), options: DecodingOptions(), accepts: { _ in true }, sink: Collector())
        let piece = 2000
        var held: [Int] = []
        for start in stride(from: 0, to: data.count - piece, by: piece) {
            #expect(try stream.advance(data[start..<start + piece], isComplete: false) == .needsMore)
            held.append(stream.heldBytes)
        }
        #expect(held.count > 10 && held.allSatisfy { $0 < piece }, "\(held)")
        #expect(held.contains { $0 > 0 })
        #expect(try stream.advance(data.suffix(from: held.count * piece), isComplete: true) == .finished)
        #expect(stream.heldBytes == 0)
    }

    /// A long run of fill bytes, which libjpeg reads without saving its place, is held no further than
    /// `maxHeldBytes`: the stream fails there (the ordinary decode takes such a file), and the whole file decodes.
    @Test func aLongRunOfFillBytesIsNotHeld() throws {
        let data = try JPEGPlanarTests.fixture("coffee-420")
        let filled = Data(data.dropLast(2) + Data(repeating: 0xFF, count: 2 << 20) + data.suffix(2))
        let stream = JPEGPlanarStream(
            decoder: JPEGDecoder(), options: DecodingOptions(), accepts: { _ in true }, sink: Collector())
        var fed = 0
        var thrown: (any Error)?
        do {
            while fed < filled.count {
                let end = min(fed + 65536, filled.count)
                _ = try stream.advance(filled[fed..<end], isComplete: end == filled.count)
                fed = end
            }
        } catch {
            thrown = error
        }
        #expect(fed < filled.count)
        let reason = "libjpeg left over 1 MiB of the body unread (a long run of fill bytes); decode the file whole"
        #expect(thrown as? TroveError == .decodingFailed(format: .jpeg, reason: reason))
        #expect(try Self.wholeDecode(filled).planes == Self.wholeDecode(data).planes)
    }

    /// Reduced as the whole decode reduces.
    @Test(arguments: ["coffee-420", "chelsea-420-progressive"])
    func reducedPiecesDecodeAsTheWholeFile(_ name: String) throws {
        let data = try JPEGPlanarTests.fixture(name)
        let options = DecodingOptions(minimumSize: PixelSize(width: 120, height: 80))
        let whole = try Self.wholeDecode(data, options: options)
        let streamed = Collector()
        let stream = JPEGDecoder().makePlanarStream(options: options, accepts: { _ in true }, into: streamed)
        #expect(try Self.feed(data, in: 997, to: stream).last == .finished)
        #expect(try #require(whole.header).width < 600)
        #expect(streamed.header == whole.header && streamed.planes == whole.planes)
    }

    /// A baseline file's rows reach the sink while its body is still arriving; a progressive file's only once
    /// its last scan has.
    @Test func baselineRowsArriveWithTheirData() throws {
        let data = try JPEGPlanarTests.fixture("large-1001x667")
        let sink = Collector()
        let stream = JPEGDecoder().makePlanarStream(options: DecodingOptions(), accepts: { _ in true }, into: sink)
        let cut = data.count * 6 / 10
        #expect(try stream.advance(data.prefix(cut), isComplete: false) == .needsMore)
        let rowsSoFar = sink.planes[0].count / 1001
        #expect(rowsSoFar > 200 && rowsSoFar < 667)
        #expect(try stream.advance(data.dropFirst(cut), isComplete: false) == .finished)
        #expect(sink.planes == (try Self.wholeDecode(data)).planes)

        let progressive = try JPEGPlanarTests.fixture("chelsea-420-progressive")
        let waiting = Collector()
        let scans = JPEGDecoder().makePlanarStream(options: DecodingOptions(), accepts: { _ in true }, into: waiting)
        let most = progressive.count * 9 / 10
        #expect(try scans.advance(progressive.prefix(most), isComplete: false) == .needsMore)
        #expect(waiting.header == nil && waiting.planes[0].isEmpty)
        #expect(try scans.advance(progressive.dropFirst(most), isComplete: true) == .finished)
        #expect(waiting.planes == (try Self.wholeDecode(progressive)).planes)
    }

    /// A body that ends mid-scan fails when it is complete, as the whole file fails, and keeps failing.
    @Test(arguments: ["coffee-420", "chelsea-420-progressive"])
    func aTruncatedBodyFailsOnceComplete(_ name: String) throws {
        let cut = try JPEGPlanarTests.fixture(name).prefix(20_000)
        let stream = JPEGDecoder().makePlanarStream(
            options: DecodingOptions(), accepts: { _ in true }, into: Collector())
        for start in stride(from: 0, to: cut.count, by: 1000) {
            #expect(try stream.advance(cut[start..<start + 1000], isComplete: false) == .needsMore)
        }
        var reason = ""
        do {
            _ = try stream.advance(Data(), isComplete: true)
        } catch let TroveError.decodingFailed(format, message) {
            #expect(format == .jpeg)
            reason = message
        }
        #expect(reason.contains("truncated"))
        #expect(throws: TroveError.decodingFailed(format: .jpeg, reason: reason)) {
            _ = try stream.advance(cut, isComplete: true)
        }
    }

    /// A sequential file missing only its end marker waits for the body's end, then is whole.
    @Test func aMissingEndMarkerWaitsForTheBodysEnd() throws {
        let data = try JPEGPlanarTests.fixture("coffee-420")
        let headless = Data(data.dropLast(2))
        let sink = Collector()
        let stream = JPEGDecoder().makePlanarStream(options: DecodingOptions(), accepts: { _ in true }, into: sink)
        #expect(try stream.advance(headless, isComplete: false) == .needsMore)
        #expect(try stream.advance(Data(), isComplete: true) == .finished)
        #expect(sink.planes == (try Self.wholeDecode(data)).planes)
    }

    /// A segment longer than the pieces is skipped across them (libjpeg asks to skip bytes not yet here).
    @Test func aLongSegmentIsSkippedAcrossPieces() throws {
        let data = try JPEGPlanarTests.fixture("coffee-420")
        let app15 = Data([0xFF, 0xEF, 0xEA, 0x62]) + Data(repeating: 0x5A, count: 0xEA62 - 2)
        let padded = data.prefix(2) + app15 + data.dropFirst(2)
        let sink = Collector()
        let stream = JPEGDecoder().makePlanarStream(options: DecodingOptions(), accepts: { _ in true }, into: sink)
        #expect(try Self.feed(Data(padded), in: 1000, to: stream).last == .finished)
        #expect(sink.planes == (try Self.wholeDecode(data)).planes)
    }

    /// Declined facts decode nothing, asked once; an empty body waits, or fails once complete.
    @Test func declinedAndEmptyBodies() throws {
        let data = try JPEGPlanarTests.fixture("coffee-420")
        let sink = Collector()
        var asked = 0
        let declining = JPEGDecoder().makePlanarStream(
            options: DecodingOptions(),
            accepts: { _ in
                asked += 1
                return false
            }, into: sink)
        #expect(try declining.advance(data.prefix(2), isComplete: false) == .needsMore)
        #expect(try declining.advance(data[2..<4000], isComplete: false) == .declined)
        #expect(try declining.advance(data.dropFirst(4000), isComplete: true) == .declined)
        #expect(asked == 1 && sink.header == nil)

        let empty = JPEGDecoder().makePlanarStream(
            options: DecodingOptions(), accepts: { _ in true }, into: Collector())
        #expect(try empty.advance(Data(), isComplete: false) == .needsMore)
        #expect(throws: TroveError.decodingFailed(format: .jpeg, reason: "the file is empty")) {
            _ = try empty.advance(Data(), isComplete: true)
        }
    }

    /// The limits are checked on the header, before anything reaches the sink.
    @Test func limitsAreCheckedOnTheHeader() throws {
        let data = try JPEGPlanarTests.fixture("large-1001x667")
        let sink = Collector()
        let stream = JPEGDecoder().makePlanarStream(
            options: DecodingOptions(limits: DecodingLimits(maxPixels: 500_000)), accepts: { _ in true }, into: sink)
        #expect(throws: TroveError.imageTooLarge(width: 1001, height: 667, limit: 500_000)) {
            _ = try stream.advance(data.prefix(5000), isComplete: false)
        }
        #expect(sink.header == nil)
    }

    /// What the sink throws ends the decode, and every later call throws it again.
    @Test func theSinksErrorEndsTheDecode() throws {
        final class Refusing: PlaneRowSink {
            func begin(_ header: PlanarStreamHeader) throws {}
            func consume(plane: Int, row: UnsafePointer<UInt8>) throws { throw TroveError.cancelled }
        }
        let data = try JPEGPlanarTests.fixture("coffee-420")
        let stream = JPEGDecoder().makePlanarStream(
            options: DecodingOptions(), accepts: { _ in true }, into: Refusing())
        #expect(throws: TroveError.cancelled) { _ = try stream.advance(data.prefix(30_000), isComplete: false) }
        #expect(throws: TroveError.cancelled) { _ = try stream.advance(data.dropFirst(30_000), isComplete: true) }
    }
}
