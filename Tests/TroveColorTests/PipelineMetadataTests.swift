import Foundation
import Testing
import Trove
import TroveCodec
import TroveCore
import TroveJPEG
import TroveTestSupport

/// Through the pipeline, a request's options decide what of the source's metadata reaches the result: the
/// copyright notice by default (`dropsCopyright` leaves it out) and the colour profile only with
/// `keepsColorProfile`; each choice has its own cache key.
@Suite(.serialized) struct PipelineMetadataTests {
    @Test func requestOptionsDecideTheNoticeAndTheProfile() async throws {
        try await withTemporaryDirectory { directory in
            let camera = directory.appendingPathComponent("camera.jpg")
            try await CopyrightNoticeTests.writeCameraJPEG(to: camera)
            let cases = try await ColorCases.make(in: directory)
            let prophoto = try #require(cases.first { $0.name == "prophoto.jpg" })
            let pipeline = try ImagePipeline(
                registry: try ColorCases.registry(color: true), configuration: .memoryOnly)
            let resize = ResizeTransformer(width: 32, height: 32, mode: .fit)
            func result(_ file: URL, _ options: ImageRequest.Options) async throws -> ImageResponse {
                try await pipeline.image(
                    for: ImageRequest(url: file, transforms: [resize], options: options, outputFormat: .png))
            }

            let kept = try await result(camera, [])
            let dropped = try await result(camera, .dropsCopyright)
            #expect(
                PNGDecoder().copyrightNotice(kept.data)
                    == CopyrightNotice(copyright: "(c) 2026 Ana Lima", artist: "Ana Lima"))
            #expect(PNGDecoder().copyrightNotice(dropped.data) == nil)
            #expect(kept.cacheKey.processed != dropped.cacheKey.processed)

            let converted = try await result(URL(fileURLWithPath: prophoto.file), [])
            let tagged = try await result(URL(fileURLWithPath: prophoto.file), .keepsColorProfile)
            #expect(try PNGDecoder().decode(converted.data, limits: .default).colorDescription == nil)
            let profile = try PNGDecoder().decode(tagged.data, limits: .default).colorDescription
            #expect(profile?.iccProfile != nil, "the ProPhoto profile is embedded")
            #expect(converted.cacheKey.processed != tagged.cacheKey.processed)
            #expect(converted.data != tagged.data)
        }
    }
}
