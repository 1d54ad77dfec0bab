import Foundation
import TroveCore

/// Stage 7, decode: picks the decoder that claims the bytes and decodes them, at a reduced size when the
/// transforms start by shrinking, with colour brought to sRGB by the `ColorStage` when the registry has a
/// converter. Fetched bytes that do not decode are removed from disk and remembered as a failure.
package struct DecodeStage: Sendable {
    let parts: PipelineParts
    /// Brings decoded images to sRGB; nil when the registry has no colour converter.
    let colorStage: ColorStage?

    /// Decodes the bytes behind a request for its transforms and returns the transforms still to run (see
    /// `decode(_:url:for:)`), on `threads` when given (a large source: off the cooperative pool). Bytes
    /// fetched just now that do not decode must not stay cached as if they were an image.
    func decode(_ raw: RawResult, for request: ImageRequest, key: CacheKey, on threads: DecodeThreads?)
        async throws -> (Image, [any ImageTransformer])
    {
        do {
            guard let threads else { return try decode(raw.data, for: request) }
            let data = raw.data
            return try await threads.run { try self.decode(data, for: request) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if raw.source == .network {
                await parts.cacheWriter.removeUndecodable(forKey: key.raw)
                // A memory-only request keeps its failure in the process: nothing of it reaches the disk.
                await parts.failures.record(
                    error, forKey: key.raw, persists: request.cachePolicy != .memoryOnly)
            }
            throw error
        }
    }

    /// A whole decode (a processed result read back from disk).
    func decode(_ data: Data, url: URL) throws -> Image {
        try Self.decoder(in: parts.registry, for: data, url: url).decode(
            data, limits: parts.configuration.decodingLimits)
    }

    /// Decodes at a reduced size when the transforms start by shrinking (and the decoder can reduce), and
    /// returns the transforms to run on that image: the same output as from a full-size decode. Rows stream
    /// into a leading resize unless a delegate's `didDecode` must see the decoded image first. The request's
    /// options say whether the source's colour profile and copyright notice stay on the image.
    private func decode(_ data: Data, for request: ImageRequest) throws -> (Image, [any ImageTransformer]) {
        let configuration = parts.configuration
        let decoder = try Self.decoder(in: parts.registry, for: data, url: request.url)
        let keepsProfile = request.options.contains(.keepsColorProfile)
        return try parts.journaling(request.url) {
            try decoder.decode(
                data, limits: configuration.decodingLimits, for: request.transformsAsRun,
                reducingGap: configuration.shrinkOnLoadReducingGap, streamsRows: configuration.delegate == nil,
                color: colorStage?.keepingProfiles(keepsProfile).forSource(request.url.absoluteString),
                keepsCopyright: !request.options.contains(.dropsCopyright))
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
