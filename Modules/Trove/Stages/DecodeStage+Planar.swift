import Foundation
import TroveCore
import TroveTransformers

/// What a planar decode made: the resized planes and the file's copyright notice, or why the source's header
/// sent the result the RGBA way (nothing decoded).
enum PlanarDecode {
    case planes(YCbCrPlanes, copyright: CopyrightNotice?)
    case fallback(PlanarRoute.Fallback)
}

extension DecodeStage {
    /// Decodes the source's planes along `route`, reduced as shrink-on-load would reduce its RGBA, straight
    /// into the route's resize (`PlanarResizer`): the result's planes, or the fallback the header called for.
    /// Bytes fetched just now that do not decode are forgotten as `run` forgets them.
    func runPlanar(
        _ input: (raw: RawResult, request: ImageRequest, key: CacheKey, route: PlanarRoute, threads: DecodeThreads?)
    ) async throws -> PlanarDecode {
        let (raw, request, key, route, threads) = input
        return try await forgettingUndecodable(raw, for: request, key: key) {
            guard let threads else { return try decodePlanes(raw.data, for: request, route: route) }
            let data = raw.data
            return try await threads.run { try self.decodePlanes(data, for: request, route: route) }
        }
    }

    private func decodePlanes(_ data: Data, for request: ImageRequest, route: PlanarRoute) throws -> PlanarDecode {
        let plan = ShrinkOnLoad(
            transforms: request.transformsAsRun, storedSize: route.storedSize, orientation: .up,
            reducingGap: configuration.shrinkOnLoadReducingGap)
        let options = DecodingOptions(limits: configuration.decodingLimits, minimumSize: plan?.minimumSize)
        let sink = PlanarResizer(resize: route.resize, storedSize: route.storedSize)
        var fallback: PlanarRoute.Fallback?
        // Without a converter the RGBA way leaves a profile on the image, and an encoder may embed it.
        let keepsProfile = request.options.contains(.keepsColorProfile) || colorStage == nil
        let decoded = try sourceGuard.journaling(request.url) {
            try route.decoder.decodePlanes(
                data, options: options,
                accepts: { facts in
                    fallback = route.fallback(for: facts, keepsProfile: keepsProfile)
                    return fallback == nil
                }, into: sink)
        }
        guard decoded else { return .fallback(fallback ?? .headerUnread) }
        let copyright = request.options.contains(.dropsCopyright) ? nil : route.decoder.copyrightNotice(data)
        return .planes(try sink.result(), copyright: copyright)
    }
}
