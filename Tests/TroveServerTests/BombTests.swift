import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove
import TroveCore
import TroveServer
import TroveTestSupport

/// Decompression bombs and an impostor, each served by a loopback origin: the decoder refuses it from its
/// header with an error naming what was wrong and the limit, the server answers 422 saying the same, and
/// nothing is kept as a success. A PNG whose data inflates past its header is read to the header's rows only.
@Suite struct BombTests {
    /// One hostile source: its bytes, what the decoder must throw, and what the server must say.
    struct Bomb: Sendable, CustomStringConvertible {
        let name: String
        let bytes: Data
        let contentType: String
        /// The decoder's error, checked before any pixels exist: the header's size, or the bytes of the frames
        /// it keeps, against `DecodingLimits.default`. Nil for bytes no decoder claims.
        let decoderError: TroveError?
        /// A part of the server's 422 message, under the server's own limits (50 megapixels, 100 frames).
        let message: String

        var description: String { name }
    }

    static let bombs: [Bomb] = [
        // Frames past the limit are dropped, not refused (1,000 kept by default, 100 by the server), but
        // even the kept frames of 6000x6000 are far over the 1 GiB of decoded bytes.
        Bomb(
            name: "gif-frames", bytes: Bombs.gifWithFrames(10_000, width: 6000, height: 6000), contentType: "image/gif",
            decoderError: .tooLargeToDecode(
                needed: 1000 * 6000 * 6000 * 4, limit: 1 << 30, setting: "DecodingLimits.maxDecodedBytes"),
            message: "too large to decode within 1 GiB"),
        Bomb(
            name: "gif-screen", bytes: Bombs.gifWithScreen(width: 60_000, height: 60_000), contentType: "image/gif",
            decoderError: .imageTooLarge(width: 60_000, height: 60_000, limit: 100_000_000),
            message: "image of 60000x60000 pixels is over the limit of 50000000 pixels"),
        Bomb(
            name: "webp", bytes: Bombs.webpHeader(width: 100_000, height: 100_000), contentType: "image/webp",
            decoderError: .imageTooLarge(width: 100_000, height: 100_000, limit: 100_000_000),
            message: "image of 100000x100000 pixels is over the limit of 50000000 pixels"),
        Bomb(
            name: "avif",
            bytes: Bombs.isobmff(
                try! Data(contentsOf: Fixtures.url("avif/photo.avif")), declaringWidth: 60_000, height: 50_000),
            contentType: "image/avif",
            decoderError: .imageTooLarge(width: 60_000, height: 50_000, limit: 100_000_000),
            message: "image of 60000x50000 pixels is over the limit of 50000000 pixels"),
        Bomb(
            name: "heic",
            bytes: Bombs.isobmff(
                try! Data(contentsOf: Fixtures.url("heic/large.heic")), declaringWidth: 60_000, height: 50_000,
                replacing: (4032, 3024)),
            contentType: "image/heic",
            decoderError: .imageTooLarge(width: 60_000, height: 50_000, limit: 100_000_000),
            message: "image of 60000x50000 pixels is over the limit of 50000000 pixels"),
        Bomb(
            name: "jxl", bytes: Bombs.jxlHeader(width: 1 << 30, height: 1 << 30), contentType: "image/jxl",
            decoderError: .imageTooLarge(width: 1 << 30, height: 1 << 30, limit: 100_000_000),
            message: "image of 1073741824x1073741824 pixels is over the limit of 50000000 pixels"),
        Bomb(
            name: "jpeg",
            bytes: Bombs.jpeg(
                try! Data(contentsOf: Fixtures.url("jpeg/baseline.jpg")), declaringWidth: 65_000, height: 65_000),
            contentType: "image/jpeg",
            decoderError: .imageTooLarge(width: 65_000, height: 65_000, limit: 100_000_000),
            message: "image of 65000x65000 pixels is over the limit of 50000000 pixels"),
        Bomb(
            name: "svg", bytes: Bombs.svg, contentType: "image/svg+xml", decoderError: nil,
            message: "not an image this server can decode")
    ]

    @Test(arguments: bombs) func theDecoderRefusesFromTheHeader(bomb: Bomb) throws {
        let registry = try ServerHarness.registry()
        guard let expected = bomb.decoderError else {
            #expect(registry.decoder(for: bomb.bytes) == nil, "an SVG is no decoder's format")
            return
        }
        let decoder = try #require(registry.decoder(for: bomb.bytes), "no decoder claims the \(bomb.name) bomb")
        // The default limits are the server's; the error is the header check's (no pixels were decoded: the
        // bodies are far too short to hold what they declare).
        #expect(throws: expected) { try decoder.decode(bomb.bytes, limits: .default) }
        // The route the server takes for a shrinking resize: a reduced or row-streamed decode.
        let options = DecodingOptions(minimumSize: PixelSize(width: 100, height: 100))
        #expect(throws: expected) { try decoder.decode(bomb.bytes, options: options) }
        if let streaming = decoder as? any RowStreamingImageDecoder {
            #expect(throws: expected) {
                try streaming.decode(bomb.bytes, options: options, into: CollectingRowSink())
            }
        }
    }

    @Test(arguments: bombs) func theServerAnswers422NamingTheLimitAndKeepsNothing(bomb: Bomb) async throws {
        let signer = URLSigner.test
        let origin = FixtureServer(routes: ["/bomb": .file(bomb.bytes, contentType: bomb.contentType)])
        let harness = try await ServerHarness.start(origin: origin) {
            $0.keys = [signer.key]
            $0.salts = [signer.salt]
        }
        defer { Task { await harness.stop() } }
        let path = signer.signed("/rs:fit:100:100/plain/\(origin.url("/bomb"))@png")

        let first = try await harness.request(path)
        #expect(first.status.code == 422, "\(bomb.name): \(first.status) \(first.text)")
        #expect(first.text.contains(bomb.message), "\(bomb.name): \(first.text)")
        #expect(first.header(.contentType) == "text/plain; charset=utf-8")
        #expect(first.header(.eTag) == nil)
        // Asked again, it is still refused: no result and no source bytes were kept as a success.
        let second = try await harness.request(path)
        #expect(second.status.code != 200, "\(bomb.name): \(second.status) \(second.text)")
        #expect(second.header(.contentType) == "text/plain; charset=utf-8")
        #expect(try storedEntries(under: harness.cacheDirectory).isEmpty, "\(bomb.name) left a cache entry")
    }

    /// A 16x16 PNG whose one IDAT inflates to 16 MiB: as libpng and browsers read it, the header's 16 rows are
    /// the image and inflating stops where they end (the output buffer is the header's size plus one byte), so
    /// the data it claims never exists. Every decode route gives the 16x16 image, and the server answers it.
    @Test func aPNGInflatingPastItsHeaderIsReadToItsHeadersRows() async throws {
        let bytes = Bombs.pngInflatingPastItsHeader()
        let decoder = try #require(try ServerHarness.registry().decoder(for: bytes))
        let whole = try decoder.decode(bytes, limits: .default)
        #expect(whole.width == 16 && whole.height == 16)
        #expect(whole.pixels == [UInt8](repeating: 0, count: 16 * 16 * 4))
        // The reduced route (a 2x box reduction for an 8x8 minimum) and the row-streamed one.
        let options = DecodingOptions(minimumSize: PixelSize(width: 8, height: 8))
        let reduced = try decoder.decode(bytes, options: options)
        #expect(reduced.width == 8 && reduced.height == 8)
        #expect(reduced.pixels == [UInt8](repeating: 0, count: 8 * 8 * 4))
        let streaming = try #require(decoder as? any RowStreamingImageDecoder)
        let rows = CollectingRowSink()
        try streaming.decode(bytes, options: options, into: rows)
        #expect(rows.rows == rows.header?.height && rows.rows > 0)
        #expect(rows.pixels.count == rows.rows * (rows.header?.width ?? 0) * 4 && rows.pixels.allSatisfy { $0 == 0 })

        let signer = URLSigner.test
        let origin = FixtureServer(routes: ["/bomb": .file(bytes, contentType: "image/png")])
        let harness = try await ServerHarness.start(origin: origin) {
            $0.keys = [signer.key]
            $0.salts = [signer.salt]
        }
        defer { Task { await harness.stop() } }
        let answer = try await harness.request(signer.signed("/rs:fit:8:8/plain/\(origin.url("/bomb"))@png"))
        #expect(answer.status.code == 200, "\(answer.status) \(answer.text)")
        #expect(answer.header(.contentType) == "image/png")
    }

    /// The entry files in a cache directory (none before anything was stored).
    func storedEntries(under directory: URL) throws -> [URL] {
        let entries = directory.appendingPathComponent("entries")
        guard let walker = FileManager.default.enumerator(at: entries, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        return walker.compactMap { $0 as? URL }.filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }
}
