import Foundation
import Testing
import Trove
import TroveServer

/// imgproxy's delivery variables read into `ServerConfiguration`, Trove's own names and flags over them, and
/// the variables for behaviour Trove has one way only: honoured when they ask for it, named otherwise.
@Suite struct ImgproxyDeliveryVariablesTests {
    @Test func imgproxysDeliveryVariablesAreRead() throws {
        let configuration = try ServerConfiguration(environment: [
            "IMGPROXY_ENFORCE_WEBP": "true", "IMGPROXY_ENFORCE_AVIF": "1", "IMGPROXY_ENFORCE_JXL": "false",
            "IMGPROXY_PREFERRED_FORMATS": "png, jpg", "IMGPROXY_SKIP_PROCESSING_FORMATS": "gif,svg",
            "IMGPROXY_USE_ETAG": "false", "IMGPROXY_USE_LAST_MODIFIED": "true",
            "IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "true", "IMGPROXY_WATERMARK_OPACITY": "0.25",
            "IMGPROXY_ENABLE_CLIENT_HINTS": "true"
        ])
        #expect(configuration.enforcedFormats == [.webp, .avif])
        #expect(configuration.preferredFormats == [.png, .jpeg])
        #expect(configuration.skipProcessingFormats == [.gif, "svg"])
        #expect(!configuration.useEntityTags)
        #expect(configuration.useLastModified && configuration.cacheControlPassthrough)
        #expect(configuration.watermarkOpacity == 0.25 && configuration.clientHints)

        let defaults = ServerConfiguration()
        #expect(defaults.enforcedFormats.isEmpty && defaults.preferredFormats.isEmpty)
        #expect(defaults.useEntityTags && !defaults.useLastModified && !defaults.cacheControlPassthrough)
        #expect(defaults.watermarkOpacity == 1 && !defaults.clientHints)
        #expect(try ServerConfiguration(environment: ["IMGPROXY_USE_ETAG": "true"]).useEntityTags)
    }

    @Test func trovesNamesAndFlagsWin() throws {
        let configuration = try ServerConfiguration(
            environment: [
                "IMGPROXY_USE_ETAG": "true", "TROVE_NO_ETAG": "true", "IMGPROXY_PREFERRED_FORMATS": "png",
                "TROVE_PREFERRED_FORMATS": "webp", "IMGPROXY_ENFORCE_WEBP": "true"
            ],
            arguments: [
                "--enforce-jxl", "--watermark-opacity", "0.5", "--use-last-modified", "--enable-client-hints",
                "--skip-processing-format", "jpeg", "--skip-processing-format", "png"
            ])
        #expect(!configuration.useEntityTags)
        #expect(configuration.preferredFormats == [.webp])
        #expect(configuration.enforcedFormats == [.webp, .jxl])
        #expect(configuration.watermarkOpacity == 0.5 && configuration.useLastModified && configuration.clientHints)
        #expect(configuration.skipProcessingFormats == [.jpeg, .png])
    }

    @Test func badValuesNameTheVariableAndWhatIsAllowed() {
        #expect(
            throws: ServerConfigurationError(
                "IMGPROXY_PREFERRED_FORMATS=bogus is not an image format; use jpeg, png, gif, webp, avif, jxl, heic, bmp, tiff, svg or ico"
            )
        ) {
            try ServerConfiguration(environment: ["IMGPROXY_PREFERRED_FORMATS": "png,bogus"])
        }
        #expect(throws: ServerConfigurationError("--watermark-opacity 1.5 is not an opacity from 0 to 1")) {
            try ServerConfiguration(arguments: ["--watermark-opacity", "1.5"])
        }
        #expect(throws: ServerConfigurationError("IMGPROXY_USE_ETAG=sometimes is not a switch; use true or false")) {
            try ServerConfiguration(environment: ["IMGPROXY_USE_ETAG": "sometimes"])
        }
    }

    @Test func fixedBehaviourIsHonouredOrNamedAsIgnored() throws {
        // What Trove does anyway is not named; asking for the other way is.
        let honoured = ServerConfiguration.ignoredVariables(in: [
            "IMGPROXY_STRIP_METADATA": "true", "IMGPROXY_ENFORCE_THUMBNAIL": "false",
            "IMGPROXY_USE_ETAG": "true", "IMGPROXY_ENFORCE_AVIF": "true", "IMGPROXY_ENABLE_CLIENT_HINTS": "true",
            "IMGPROXY_KEEP_COPYRIGHT": "false", "IMGPROXY_STRIP_COLOR_PROFILE": "false"
        ])
        #expect(honoured.isEmpty)
        let ignored = ServerConfiguration.ignoredVariables(in: [
            "IMGPROXY_STRIP_METADATA": "false", "IMGPROXY_KEEP_COPYRIGHT": "true",
            "IMGPROXY_STRIP_COLOR_PROFILE": "true", "IMGPROXY_ENFORCE_THUMBNAIL": "true",
            "IMGPROXY_PREFERRED_FORMATS": "webp"
        ])
        #expect(ignored == ["IMGPROXY_ENFORCE_THUMBNAIL", "IMGPROXY_STRIP_METADATA"])
        // Profile and copyright are settings of their own, either way.
        let kept = try ServerConfiguration(environment: [
            "IMGPROXY_STRIP_COLOR_PROFILE": "false", "IMGPROXY_KEEP_COPYRIGHT": "false"
        ])
        #expect(kept.keepsColorProfile && kept.dropsCopyright)
        let defaults = try ServerConfiguration(environment: [
            "IMGPROXY_STRIP_COLOR_PROFILE": "true", "IMGPROXY_KEEP_COPYRIGHT": "true"
        ])
        #expect(!defaults.keepsColorProfile && !defaults.dropsCopyright)
        #expect(try ServerConfiguration(arguments: ["--keep-color-profile", "--drop-copyright"]).dropsCopyright)
        #expect(throws: ServerConfigurationError("IMGPROXY_KEEP_COPYRIGHT=maybe is not a switch; use true or false")) {
            try ServerConfiguration(environment: ["IMGPROXY_KEEP_COPYRIGHT": "maybe"])
        }
    }
}
