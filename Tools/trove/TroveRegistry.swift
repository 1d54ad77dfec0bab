import ArgumentParser
import Foundation
import Trove
import TroveAVIF
import TroveColor
import TroveHEIF
import TroveJPEG
import TroveJXL
import TroveRedis
import TroveS3
import TroveWebP

/// The registry the CLI composes its pipelines from: the standard set plus the plugins the tool ships.
enum TroveRegistry {
    /// `s3Sources` says where `s3://bucket/key` sources are read from; nil reads it from the environment
    /// (`TROVE_S3_ENDPOINT` and `TROVE_S3_REGION`, else imgproxy's `IMGPROXY_S3_*`). `avifSpeed` is libavif's
    /// speed for AVIF results that name none (`trove serve --avif-speed`).
    static func make(s3Sources: S3SourceSettings? = nil, avifSpeed: Int = 8) throws -> PluginRegistry {
        let sources: S3SourceSettings
        do {
            sources = try s3Sources ?? S3SourceSettings.fromEnvironment(ProcessInfo.processInfo.environment)
        } catch let error as S3Error {
            throw ValidationError(error.description)
        }
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveRedisPlugin())
        try registry.install(TroveS3Plugin(sources: sources))
        try registry.install(TroveWebPPlugin())
        try registry.install(TroveAVIFPlugin(encoderSpeed: avifSpeed))
        try registry.install(TroveJXLPlugin())
        try registry.install(TroveHEIFPlugin())
        try registry.install(TroveColorPlugin())
        return registry
    }
}
