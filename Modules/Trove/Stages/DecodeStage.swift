import Foundation
import TroveCore

/// Decode: first what the source is (`probe`: the decoder the fetch's check found, else the one that claims
/// the bytes, and the header), then the decode, at a reduced size when the transforms start by shrinking, with colour brought to sRGB by the `ColorStage` when the registry has a converter.
/// Returns the image and the transforms still to run. Fetched bytes that do not decode are removed from disk
/// and remembered as a failure.
struct DecodeStage: PipelineStage {
    let registry: PluginRegistry
    /// Decoding limits, the shrink-on-load gap, and whether a delegate must see the whole decoded image.
    let configuration: PipelineConfiguration
    /// Brings decoded images to sRGB; nil when the registry has no colour converter.
    let colorStage: ColorStage?
    let sourceGuard: SourceGuard
    let cacheWriter: CacheWriter
    let failures: FailureMemory

    /// Decodes the bytes behind a request for its transforms with the decoder and header `probe` found, on
    /// `threads` when given (a large source: off the cooperative pool).
    func run(
        _ input: (raw: RawResult, request: ImageRequest, key: CacheKey, probe: SourceProbe, threads: DecodeThreads?)
    ) async throws -> (image: Image, remaining: [any ImageTransformer]) {
        let (raw, request, key, probe, threads) = input
        return try await forgettingUndecodable(raw, for: request, key: key) {
            guard let threads else { return try decode(raw.data, for: request, probe: probe) }
            let data = raw.data
            return try await threads.run { try self.decode(data, for: request, probe: probe) }
        }
    }

    /// What the source is: the decoder the fetch found, else the one that claims the bytes, and the header,
    /// read once for every step after.
    func probe(_ raw: RawResult, for request: ImageRequest, key: CacheKey) async throws -> SourceProbe {
        try await forgettingUndecodable(raw, for: request, key: key) {
            SourceProbe(
                raw.data, decoder: try raw.decoder ?? Self.decoder(in: registry, for: raw.data, url: request.url))
        }
    }

    /// Runs `work` on the bytes; when it fails, bytes fetched just now are removed from disk and remembered as
    /// a failure: they must not stay cached as if they were an image.
    func forgettingUndecodable<T>(
        _ raw: RawResult, for request: ImageRequest, key: CacheKey, _ work: () async throws -> T
    ) async throws -> T {
        do {
            return try await work()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if raw.source == .network {
                await cacheWriter.removeUndecodable(forKey: key.raw)
                // A memory-only request keeps its failure in the process: nothing of it reaches the disk.
                await failures.record(error, forKey: key.raw, persists: request.cachePolicy != .memoryOnly)
            }
            throw error
        }
    }

    /// A whole decode (a processed result read back from disk).
    func decode(_ data: Data, url: URL) throws -> Image {
        try Self.decoder(in: registry, for: data, url: url).decode(data, limits: configuration.decodingLimits)
    }

    /// Decodes at a reduced size when the transforms start by shrinking (and the decoder can reduce), and
    /// returns the transforms to run on that image: the same output as from a full-size decode. Rows stream
    /// into a leading resize unless a delegate's `didDecode` must see the decoded image first. The request's
    /// options say whether the source's colour profile and copyright notice stay on the image.
    private func decode(_ data: Data, for request: ImageRequest, probe: SourceProbe) throws
        -> (image: Image, remaining: [any ImageTransformer])
    {
        let decoder = probe.decoder
        let keepsProfile = request.options.contains(.keepsColorProfile)
        return try sourceGuard.journaling(request.url) {
            try decoder.decode(
                data, limits: configuration.decodingLimits, for: request.transformsAsRun,
                reducingGap: configuration.shrinkOnLoadReducingGap, streamsRows: configuration.delegate == nil,
                color: colorStage?.keepingProfiles(keepsProfile).forSource(request.url.absoluteString),
                keepsCopyright: !request.options.contains(.dropsCopyright), header: probe.header)
        }
    }

    /// The decoder for these bytes, or the error that says why there is none: a known format without a
    /// registered decoder (install a plugin), or bytes that are no image format at all.
    static func decoder(in registry: PluginRegistry, for data: Data, url: URL) throws -> any ImageDecoder {
        if let decoder = registry.decoder(for: data) { return decoder }
        if let format = ImageFormat.wellKnown(sniffing: data) {
            throw TroveError.noDecoder(format: format, url: url.absoluteString)
        }
        throw TroveError.unsupportedFormat(url: url.absoluteString, firstBytes: Array(data.prefix(8)))
    }
}
