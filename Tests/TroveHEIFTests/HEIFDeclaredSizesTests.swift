import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveHEIF

/// A HEIC's container size (`ispe`) does not bound what libheif and libde265 allocate: a derived image's canvas
/// and each HEVC picture have sizes of their own. The request fuzzer (FuzzRequestHEIF) turned a 160x120 file's
/// primary item into an overlay (`iovl`) whose data reads as a 20609x49284 canvas: libheif 1.15 allocated it (7 GB,
/// 35 s in a plain C program, an out-of-memory in the fuzzer) before the decoder could compare sizes. An SPS
/// saying 20000x20000 in an otherwise intact file (made by hand, the same class) made libde265 take 1.8 GB. Both
/// are now refused from the container's boxes, before any pixel is decoded. Not release-only: debug builds
/// allocated the same.
@Suite struct HEIFDeclaredSizesTests {
    static func regression(_ name: String) throws -> Data {
        try Data(contentsOf: Fixtures.url("fuzz-regressions/\(name)"))
    }

    static func declared(_ data: Data, thumbnails: Bool = false) -> [HEIFDeclaredSizes.Declared] {
        data.withUnsafeBytes { HEIFDeclaredSizes.declared(in: $0, thumbnails: thumbnails) }
    }

    @Test func anOverlayCanvasOverTheLimitsIsRefusedBeforeDecoding() throws {
        let data = try Self.regression("overlay-canvas-20609x49284.heic")
        #expect(
            Self.declared(data).contains(
                HEIFDeclaredSizes.Declared(item: 1, what: "overlay canvas", width: 20609, height: 49284)))
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            _ = try HEIFDecoder().decode(data, limits: .default)
        } throws: { error in
            "\(error)".contains("overlay canvas is declared 20609x49284")
        }
        // Refused from the boxes: no canvas was allocated (that took half a minute).
        #expect(clock.now - start < .seconds(5))
    }

    @Test func anHEVCPictureOverTheLimitsIsRefusedBeforeDecoding() throws {
        let data = try Self.regression("hevc-sps-20000x20000.heic")
        let sizes = Self.declared(data).filter { $0.what == "HEVC picture" }
        // The colour item's SPS (changed) and the alpha item's (intact).
        #expect(sizes.map { [$0.width, $0.height] }.contains([20000, 20000]))
        #expect(sizes.map { [$0.width, $0.height] }.contains([160, 120]))
        #expect {
            _ = try HEIFDecoder().decode(data, limits: .default)
        } throws: { error in
            "\(error)".contains("HEVC picture is declared 20000x20000")
        }
    }

    /// Every HEIC fixture declares its HEVC pictures (tiles, alpha and thumbnails reached through the
    /// references) at about its own size, and decodes as before.
    @Test func realFilesDeclareTheirOwnSizes() throws {
        var names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.url("heic").path)
            .filter { $0.hasSuffix(".heic") }.map { "heic/\($0)" }
        names += try FileManager.default.contentsOfDirectory(atPath: Fixtures.url("fuzz-seeds").path)
            .filter { $0.hasSuffix(".heic") }.map { "fuzz-seeds/\($0)" }
        #expect(names.count >= 15)
        for name in names {
            let data = try Data(contentsOf: Fixtures.url(name))
            let image = try HEIFDecoder().decode(data, limits: .default)
            let pictures = Self.declared(data).filter { $0.what == "HEVC picture" }
            #expect(!pictures.isEmpty, "\(name)")
            let largest = max(image.width, image.height)
            // A tile or a coded picture is at most the image, padded to whole coding units.
            for picture in pictures {
                #expect(max(picture.width, picture.height) <= largest + 64, "\(name): \(picture)")
            }
        }
        let thumbnailed = try Data(contentsOf: Fixtures.url("heic/thumbnail.heic"))
        #expect(!Self.declared(thumbnailed, thumbnails: true).isEmpty)
    }

    /// SPS parsing: emulation prevention bytes are skipped, and a unit cut short or of another type gives no size.
    @Test func parameterSetSizes() {
        // The 160x120 SPS of the fuzz seed heic-rgba8-icc.heic: NAL header 42 01, then the payload.
        let sps: [UInt8] = [
            0x42, 0x01, 0x01, 0x03, 0x70, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00,
            0x1E, 0xA0, 0x14, 0x20, 0x79, 0x65, 0xBA, 0x92, 0x4A, 0x6B, 0x9B, 0x81, 0x01, 0x03, 0x02, 0x00, 0x00,
            0x03, 0x00, 0x02, 0x00, 0x00, 0x03, 0x00, 0x02, 0x10
        ]
        #expect(HEVCParameterSets.pictureSize(nal: sps[...]) == PixelSize(width: 160, height: 120))
        #expect(HEVCParameterSets.pictureSize(nal: sps.prefix(16)) == nil)
        var picture = sps
        picture[0] = 0x40  // a VPS header
        #expect(HEVCParameterSets.pictureSize(nal: picture[...]) == nil)
    }
}
