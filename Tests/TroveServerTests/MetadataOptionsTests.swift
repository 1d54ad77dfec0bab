import FixtureServer
import Foundation
import Testing
import Trove
import TroveColor
import TroveServer
import TroveTestSupport

/// imgproxy's metadata switches through a real server with colour management: results are in sRGB with
/// no profile unless `strip_color_profile:0` (or `--keep-color-profile`) keeps the source's, and keep the
/// source's EXIF copyright notice unless `keep_copyright:0` (or `--drop-copyright`) drops it.
@Suite struct MetadataOptionsTests {
    static let signer = URLSigner.test
    static let notice = CopyrightNotice(copyright: "(c) 2026 Ana Lima", artist: "Ana Lima")

    /// A flat ProPhoto RGB PNG (its red far outside sRGB's gamut) and a JPEG carrying a copyright notice.
    static func sources(in folder: URL, registry: PluginRegistry) throws -> [UInt8] {
        let profile = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/ProPhotoRGB.icc")))
        let pixels = [UInt8]((0..<(64 * 48)).flatMap { _ in [200, 40, 40, 255] as [UInt8] })
        let wide = Image(
            width: 64, height: 48, pixelFormat: .rgba8, pixels: pixels,
            colorDescription: ColorDescription(iccProfile: profile))
        try registry.encoder(for: .png).encode(wide, options: EncodingOptions())
            .write(to: folder.appendingPathComponent("wide.png"))
        let signed = Image(width: 64, height: 48, pixelFormat: .rgba8, pixels: pixels, copyright: notice)
        try registry.encoder(for: .jpeg).encode(signed, options: EncodingOptions())
            .write(to: folder.appendingPathComponent("signed.jpg"))
        return profile
    }

    static func start(
        _ folder: URL, registry: PluginRegistry, _ configure: @escaping (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ServerHarness {
        try await ServerHarness.start(
            origin: try FixtureServer(serving: folder, under: "/images/"), registry: registry
        ) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
            configure(&configuration)
        }
    }

    static func colorRegistry() throws -> PluginRegistry {
        var registry = try ServerHarness.registry()
        try registry.install(TroveColorPlugin())
        return registry
    }

    @Test func urlOptionsKeepTheProfileAndDropTheNotice() async throws {
        let registry = try Self.colorRegistry()
        try await withTemporaryDirectory { folder in
            let profile = try Self.sources(in: folder, registry: registry)
            let harness = try await Self.start(folder, registry: registry)
            defer { Task { await harness.stop() } }
            let wide = harness.origin.url("/images/wide.png").absoluteString
            let signed = harness.origin.url("/images/signed.jpg").absoluteString

            let converted = try await harness.request(Self.signer.signed("/rs:fit:32:32/plain/\(wide)@png"))
            let kept = try await harness.request(Self.signer.signed("/rs:fit:32:32/scp:0/plain/\(wide)@png"))
            #expect(converted.status == .ok && kept.status == .ok)
            let png = try #require(registry.decoder(for: converted.bytes))
            let sRGB = try png.decode(converted.bytes, limits: .default)
            let original = try png.decode(kept.bytes, limits: .default)
            #expect(sRGB.colorDescription == nil, "converted to sRGB: no profile")
            #expect(original.colorDescription?.iccProfile == profile, "the ProPhoto profile embedded")
            #expect(Array(original.pixels.prefix(3)) == [200, 40, 40], "pixels as the source stored them")
            #expect(sRGB.pixels[0] > 200 && sRGB.pixels[1] < 40, "redder in sRGB: \(Array(sRGB.pixels.prefix(3)))")

            let withNotice = try await harness.request(Self.signer.signed("/rs:fit:32:32/plain/\(signed)@jpg"))
            let without = try await harness.request(Self.signer.signed("/rs:fit:32:32/kcr:0/plain/\(signed)@jpg"))
            let jpeg = try #require(registry.decoder(for: withNotice.bytes))
            #expect(jpeg.copyrightNotice(withNotice.bytes) == Self.notice)
            #expect(jpeg.copyrightNotice(without.bytes) == nil)
        }
    }

    @Test func serverSettingsChangeTheDefaultsAndURLsStillOverride() async throws {
        let registry = try Self.colorRegistry()
        try await withTemporaryDirectory { folder in
            let profile = try Self.sources(in: folder, registry: registry)
            let harness = try await Self.start(folder, registry: registry) { configuration in
                configuration.keepsColorProfile = true
                configuration.dropsCopyright = true
            }
            defer { Task { await harness.stop() } }
            let wide = harness.origin.url("/images/wide.png").absoluteString
            let signed = harness.origin.url("/images/signed.jpg").absoluteString

            let kept = try await harness.request(Self.signer.signed("/rs:fit:32:32/plain/\(wide)@png"))
            let stripped = try await harness.request(Self.signer.signed("/rs:fit:32:32/scp:1/plain/\(wide)@png"))
            let png = try #require(registry.decoder(for: kept.bytes))
            #expect(try png.decode(kept.bytes, limits: .default).colorDescription?.iccProfile == profile)
            #expect(try png.decode(stripped.bytes, limits: .default).colorDescription == nil)

            let dropped = try await harness.request(Self.signer.signed("/rs:fit:32:32/plain/\(signed)@jpg"))
            let asked = try await harness.request(Self.signer.signed("/rs:fit:32:32/kcr:1/plain/\(signed)@jpg"))
            let jpeg = try #require(registry.decoder(for: dropped.bytes))
            #expect(jpeg.copyrightNotice(dropped.bytes) == nil)
            #expect(jpeg.copyrightNotice(asked.bytes) == Self.notice)
        }
    }
}
