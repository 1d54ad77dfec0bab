import Foundation
import Synchronization
import Testing
import Trove
import TroveCodec
import TroveDiskCache
import TroveFetcher
import TrovePlaceholders
import TroveRedis
import TroveTestSupport
import TroveTransformers

/// `ImagePipeline.placeholder(for:kind:)`: the strings are the TrovePlaceholders encoders' on the pixels of a
/// reduced decode turned upright, they are kept in the original's entry so a new process neither decodes nor
/// reads the image, and odd images still get one.
@Suite struct PlaceholderPipelineTests {
    /// The standard PNG decoder, counting decodes and recording the smallest size each was asked for.
    final class CountingPNGDecoder: ImageDecoder {
        let name = "png"
        let format = ImageFormat.png
        let inner = PNGDecoder()
        var leastReducingGap: Double { inner.leastReducingGap }
        var reducesByBlocks: Bool { inner.reducesByBlocks }
        let asked = Mutex<[PixelSize?]>([])
        let produced = Mutex<[PixelSize]>([])

        var decodes: Int { asked.withLock { $0.count } }

        func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }
        func info(_ data: Data) throws -> ImageInfo? { try inner.info(data) }
        func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
            try decode(data, options: DecodingOptions(limits: limits))
        }
        func decode(_ data: Data, options: DecodingOptions) throws -> Image {
            asked.withLock { $0.append(options.minimumSize) }
            let image = try inner.decode(data, options: options)
            produced.withLock { $0.append(PixelSize(width: image.width, height: image.height)) }
            return image
        }
    }

    static func pipeline(_ directory: URL?, decoder: CountingPNGDecoder) throws -> ImagePipeline {
        var registry = PluginRegistry.standard
        try registry.register(decoder: decoder, replacing: true)
        return try ImagePipeline(
            registry: registry,
            configuration: directory.map { PipelineConfiguration(cacheDirectory: $0) } ?? .memoryOnly)
    }

    /// What the pipeline hashes: the reduced decode the public shrink-on-load API gives for `orient`, then a
    /// resize to fit in 100x100, with the rest of those transforms run.
    static func reducedPixels(of url: URL) throws -> Image {
        let transforms: [any ImageTransformer] = [
            OrientTransformer(), ResizeTransformer(width: 100, height: 100, mode: .fit)
        ]
        var (image, rest) = try PNGDecoder().decode(
            try Data(contentsOf: url), limits: .default, for: transforms, colorConverter: nil)
        for transform in rest { image = try transform.transform(image) }
        return image.convertedToRGBA8()
    }

    static func thumbHash(_ image: Image) throws -> String {
        ThumbHash.base64String(try ThumbHash.encode(rgba: image.pixels, width: image.width, height: image.height))
    }

    static func blurHash(_ image: Image, x: Int = 4, y: Int = 3) throws -> String {
        try BlurHash.encode(
            rgba: image.pixels, width: image.width, height: image.height, xComponents: x, yComponents: y)
    }

    /// The red, green and blue of a BlurHash's DC term (characters 2..<6, base 83).
    static func blurHashAverage(_ hash: String) -> [UInt8] {
        let alphabet = Array(
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)
        let value = Array(hash.utf8)[2..<6].reduce(0) { $0 * 83 + alphabet.firstIndex(of: $1)! }
        return [UInt8(value >> 16), UInt8((value >> 8) & 255), UInt8(value & 255)]
    }

    /// A PNG of `width` x `height` pixels all `rgba`, written to `directory`.
    static func flatPNG(_ name: String, width: Int, height: Int, rgba: [UInt8], in directory: URL) throws -> URL {
        let image = Image(
            width: width, height: height, pixels: Array((0..<width * height).map { _ in rgba }.joined()),
            sourceFormat: .png)
        let url = directory.appendingPathComponent(name)
        try PNGEncoder().encode(image, options: EncodingOptions()).write(to: url)
        return url
    }

    @Test func stringsAreTheEncodersOnTheReducedDecode() async throws {
        try await withTemporaryDirectory { directory in
            let decoder = CountingPNGDecoder()
            let pipeline = try Self.pipeline(directory.appendingPathComponent("cache"), decoder: decoder)
            let url = Fixtures.image("coffee.png")  // 600x400
            let reduced = try Self.reducedPixels(of: url)
            #expect(reduced.width == 100 && reduced.height == 67)
            #expect(try await pipeline.placeholder(for: url) == (try Self.thumbHash(reduced)))
            // One decode, asked for twice the 100-pixel output and made at half size: never 600x400.
            #expect(decoder.asked.withLock { $0 } == [PixelSize(width: 200, height: 134)])
            #expect(decoder.produced.withLock { $0 } == [PixelSize(width: 300, height: 200)])
            #expect(try await pipeline.placeholder(for: url, kind: .blurHash()) == (try Self.blurHash(reduced)))
            #expect(
                try await pipeline.placeholder(for: url, kind: .blurHash(x: 9, y: 2))
                    == (try Self.blurHash(reduced, x: 9, y: 2)))
        }
    }

    @Test func theHashIsOfThePictureAsDisplayed() async throws {
        let decoder = CountingPNGDecoder()
        let pipeline = try Self.pipeline(nil, decoder: decoder)
        let url = Fixtures.url("orientation/exif-png-o6.png")  // stored 32x48, displayed 48x32
        let upright = try Self.reducedPixels(of: url)
        #expect(upright.width == 48 && upright.height == 32)
        let stored = try PNGDecoder().decode(try Data(contentsOf: url), limits: .default).convertedToRGBA8()
        let value = try await pipeline.placeholder(for: url)
        #expect(value == (try Self.thumbHash(upright)))
        #expect(value != (try Self.thumbHash(stored)))
        #expect(try ThumbHash.aspectRatio(of: try ThumbHash.hash(fromBase64: value)) > 1)
    }

    @Test func aSecondCallInANewPipelineReadsNoImageBytes() async throws {
        try await withTemporaryDirectory { directory in
            let cache = directory.appendingPathComponent("cache")
            let url = Fixtures.image("coffee.png")
            let first = try Self.pipeline(cache, decoder: CountingPNGDecoder())
            let thumb = try await first.placeholder(for: url)
            let blur = try await first.placeholder(for: url, kind: .blurHash())
            await first.flush()
            let file = try #require(first.diskCache).fileURL(forKey: first.cacheKey(for: ImageRequest(url: url)).raw)
            var bytes = try Data(contentsOf: file)
            // The entry carries placeholders, so it is written as version 4; the payload is the file's bytes.
            #expect(bytes[4] == 4)
            #expect(bytes.suffix(from: bytes.count - (try Data(contentsOf: url)).count) == (try Data(contentsOf: url)))
            // Damage the payload's last byte: a read of the payload would find its CRC wrong and delete the entry.
            bytes[bytes.count - 1] ^= 0xFF
            try bytes.write(to: file)

            let decoder = CountingPNGDecoder()
            let second = try Self.pipeline(cache, decoder: decoder)
            #expect(try await second.placeholder(for: url) == thumb)
            #expect(try await second.placeholder(for: url, kind: .blurHash(x: 4, y: 3)) == blur)
            #expect(decoder.decodes == 0)
            let stats = try await #require(second.diskCache).stats()
            #expect(stats.corrupt == 0)
            #expect(try Data(contentsOf: file) == bytes)
        }
    }

    @Test func anotherMachineReadsItFromTheSharedTierWithoutTheImage() async throws {
        try await withRedisServer { server in
            try await withTemporaryDirectory { directory in
                func pipeline(_ name: String, _ decoder: CountingPNGDecoder) throws -> ImagePipeline {
                    var registry = PluginRegistry.standard
                    try registry.install(TroveRedisPlugin())
                    try registry.register(decoder: decoder, replacing: true)
                    var configuration = PipelineConfiguration(cacheDirectory: directory.appendingPathComponent(name))
                    configuration.sharedCache = server.url()
                    return try ImagePipeline(registry: registry, configuration: configuration)
                }
                let url = Fixtures.image("coffee.png")
                let first = try pipeline("a", CountingPNGDecoder())
                let value = try await first.placeholder(for: url, kind: .blurHash(x: 5, y: 5))
                await first.flush()

                let decoder = CountingPNGDecoder()
                let second = try pipeline("b", decoder)
                #expect(try await second.placeholder(for: url, kind: .blurHash(x: 5, y: 5)) == value)
                #expect(decoder.decodes == 0)
                // Its own disk never got the image: the answer came from the small value beside it.
                let raw = second.cacheKey(for: ImageRequest(url: url)).raw
                #expect(try await #require(second.diskCache).entry(forKey: raw) == nil)
                // A kind nobody computed yet is computed (and fetched) as usual.
                _ = try await second.placeholder(for: url)
                #expect(decoder.decodes == 1)
                await first.sharedTier?.shutdown()
                await second.sharedTier?.shutdown()
            }
        }
    }

    @Test func anOldEntryWithoutPlaceholdersGetsThemAndKeepsItsBytes() async throws {
        try await withTemporaryDirectory { directory in
            let cache = directory.appendingPathComponent("cache")
            let url = Fixtures.image("coffee.png")
            let first = try Self.pipeline(cache, decoder: CountingPNGDecoder())
            let original = try await first.image(for: url)
            await first.flush()
            let file = try #require(first.diskCache).fileURL(forKey: original.cacheKey.raw)
            #expect(try Data(contentsOf: file)[4] == 3)

            let decoder = CountingPNGDecoder()
            let second = try Self.pipeline(cache, decoder: decoder)
            let value = try await second.placeholder(for: url)
            await second.flush()
            #expect(decoder.decodes == 1)
            #expect(try Data(contentsOf: file)[4] == 4)
            let entry = try #require(try await DiskCache(directory: cache).entry(forKey: original.cacheKey.raw))
            #expect(entry.data == (try Data(contentsOf: url)))
            #expect(entry.metadata.placeholders == ["thumbhash": value])
        }
    }

    @Test func theResponseCarriesThePlaceholderOnlyWhenAsked() async throws {
        let pipeline = try Self.pipeline(nil, decoder: CountingPNGDecoder())
        let url = Fixtures.image("coffee.png")
        let plain = try await pipeline.image(
            for: ImageRequest(url: url, transforms: [ResizeTransformer(width: 50, height: nil)]))
        #expect(plain.placeholder == nil)
        var request = ImageRequest(url: url, transforms: [ResizeTransformer(width: 50, height: nil)])
        request.placeholder = .blurHash(x: 3, y: 3)
        let asked = try await pipeline.image(for: request)
        #expect(asked.source == .memory)
        #expect(asked.placeholder == (try Self.blurHash(try Self.reducedPixels(of: url), x: 3, y: 3)))
        #expect(asked.cacheKey == plain.cacheKey)
        request.placeholder = .thumbHash
        let final = try await pipeline.task(for: request).response
        #expect(final.placeholder == (try Self.thumbHash(try Self.reducedPixels(of: url))))
    }

    /// The file fetcher, counting fetches.
    final class CountingFileFetcher: Fetcher {
        let name = "counting-file"
        let schemes: Set<String> = ["file"]
        let inner = FileFetcher()
        let count = Mutex(0)

        func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
            -> FetchOutcome
        {
            count.withLock { $0 += 1 }
            return try await inner.fetch(request, progress: progress)
        }
    }

    @Test func aReloadFetchesOnceForTheImageAndItsPlaceholder() async throws {
        try await withTemporaryDirectory { directory in
            let fetcher = CountingFileFetcher()
            var registry = PluginRegistry.standard
            try registry.register(fetcher: fetcher)
            let pipeline = try ImagePipeline(
                registry: registry, configuration: PipelineConfiguration(cacheDirectory: directory))
            let url = Fixtures.image("coffee.png")
            var request = ImageRequest(url: url, cachePolicy: .reloadIgnoringCache)
            request.placeholder = .thumbHash
            #expect(
                try await pipeline.image(for: request).placeholder
                    == (try Self.thumbHash(try Self.reducedPixels(of: url))))
            #expect(fetcher.count.withLock { $0 } == 1)
            // A placeholder asked for with a reload of its own fetches again and computes again.
            _ = try await pipeline.placeholder(for: request, kind: .thumbHash)
            #expect(fetcher.count.withLock { $0 } == 2)
        }
    }

    @Test func tinyFlatAndTransparentImagesGetValidPlaceholders() async throws {
        try await withTemporaryDirectory { directory in
            let pipeline = try Self.pipeline(nil, decoder: CountingPNGDecoder())
            let cases: [(String, Int, Int, [UInt8])] = [
                ("one.png", 1, 1, [200, 30, 40, 255]),
                ("flat.png", 300, 20, [12, 120, 220, 255]),
                ("clear.png", 40, 40, [0, 0, 0, 0])
            ]
            for (name, width, height, rgba) in cases {
                let url = try Self.flatPNG(name, width: width, height: height, rgba: rgba, in: directory)
                let reduced = try Self.reducedPixels(of: url)
                let thumb = try await pipeline.placeholder(for: url)
                let blur = try await pipeline.placeholder(for: url, kind: .blurHash())
                #expect(thumb == (try Self.thumbHash(reduced)), "\(name)")
                #expect(blur == (try Self.blurHash(reduced)), "\(name)")
                // Both read back: ThumbHash keeps the colour and alpha, BlurHash the colour (it has no alpha).
                let average = try ThumbHash.averageColor(of: try ThumbHash.hash(fromBase64: thumb))
                #expect(abs(average.alpha - Double(rgba[3]) / 255) < 0.02, "\(name)")
                if rgba[3] == 255 {
                    #expect(abs(average.red - Double(rgba[0]) / 255) < 0.02, "\(name)")
                    #expect(abs(average.blue - Double(rgba[2]) / 255) < 0.02, "\(name)")
                }
                // BlurHash's DC term is the average colour as 24-bit sRGB (its AC terms for a flat picture are
                // rounding noise, scaled up by the format's normalisation, as in the reference).
                #expect(try BlurHash.decode(blur, width: 4, height: 4).count == 64, "\(name)")
                #expect(Self.blurHashAverage(blur) == Array(rgba.prefix(3)), "\(name)")
            }
        }
    }

    @Test func undecodableBytesFailAsAnyRequestDoes() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("not-an-image.png")
            try Data("this is not an image".utf8).write(to: url)
            let placeholderError = await #expect(throws: TroveError.self) {
                _ = try await Self.pipeline(nil, decoder: CountingPNGDecoder()).placeholder(for: url)
            }
            let imageError = await #expect(throws: TroveError.self) {
                _ = try await Self.pipeline(nil, decoder: CountingPNGDecoder()).image(for: url)
            }
            #expect(placeholderError != nil && placeholderError == imageError)
            #expect(
                placeholderError
                    == .unsupportedFormat(url: url.absoluteString, firstBytes: Array("this is ".utf8)))
        }
    }

    @Test func blurHashComponentsOutsideOneToNineAreRefused() async throws {
        let pipeline = try Self.pipeline(nil, decoder: CountingPNGDecoder())
        let error = await #expect(throws: TroveError.self) {
            _ = try await pipeline.placeholder(for: Fixtures.image("coffee.png"), kind: .blurHash(x: 10, y: 3))
        }
        #expect(
            error
                == .invalidTransformParameter(
                    transform: "blurhash", parameter: "components", reason: "must be 1...9 each, got 10x3"))
    }
}
