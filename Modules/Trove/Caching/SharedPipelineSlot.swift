import Synchronization
import TroveCore

/// Holds a process-wide pipeline (`ImagePipeline.shared`): built by `makeDefault` on the first read unless
/// replaced before it, and replaceable once, only at start-up. Once anything has read it, or it has been
/// replaced, it stays what it is, so no two parts of an app ever see two different shared pipelines.
package final class SharedPipelineSlot<Pipeline: AnyObject & Sendable>: Sendable {
    private struct State {
        var pipeline: Pipeline?
        /// Why a replacement is refused now: nil until the first read or replacement.
        var sealedBy: String?
    }

    private let state = Mutex(State())
    private let makeDefault: @Sendable () -> Pipeline
    private let name: String

    /// An empty slot that builds its pipeline with `makeDefault` when first read; `name` is how errors call it.
    package init(name: String, makeDefault: @escaping @Sendable () -> Pipeline) {
        self.name = name
        self.makeDefault = makeDefault
    }

    /// The pipeline: the replacement if there was one, else the default, built now if this is the first read.
    package var pipeline: Pipeline {
        state.withLock { state in
            if state.sealedBy == nil { state.sealedBy = "was already read (and built with the defaults)" }
            if let pipeline = state.pipeline { return pipeline }
            let pipeline = makeDefault()
            state.pipeline = pipeline
            return pipeline
        }
    }

    /// Puts `pipeline` in the slot; throws `invalidConfiguration` when the slot was already read or
    /// replaced, and then keeps what it had.
    package func replace(with pipeline: Pipeline) throws {
        try state.withLock { state in
            if let sealedBy = state.sealedBy {
                throw TroveError.invalidConfiguration(
                    "\(name) \(sealedBy); replace it once, at start-up, before anything reads it")
            }
            state.pipeline = pipeline
            state.sealedBy = "was already replaced"
        }
    }
}

extension ImagePipeline {
    private static let sharedSlot = SharedPipelineSlot<ImagePipeline>(name: "ImagePipeline.shared") {
        makeDefaultShared()
    }

    /// One pipeline for the whole process, for apps that want no wiring (Nuke's `ImagePipeline.shared`).
    /// Built lazily on first use with the defaults: `PluginRegistry.standard` (PNG and GIF; no JPEG, WebP
    /// or AVIF plugin) and `PipelineConfiguration()`, whose disk cache is in
    /// `PipelineConfiguration.defaultCacheDirectory`; when that directory cannot be made it is memory-only,
    /// with a warning logged. To use plugins or other settings, call `replaceShared(with:)` once at start-up,
    /// before anything reads `shared`.
    public static var shared: ImagePipeline { sharedSlot.pipeline }

    /// Makes `pipeline` the process's `shared` pipeline. Allowed once, before anything has read `shared`;
    /// otherwise throws `invalidConfiguration` saying which (already read, already replaced) and `shared`
    /// stays the pipeline it was.
    public static func replaceShared(with pipeline: ImagePipeline) throws {
        try sharedSlot.replace(with: pipeline)
    }

    /// The defaults; memory-only when the default cache directory cannot be made.
    private static func makeDefaultShared() -> ImagePipeline {
        do {
            return try ImagePipeline()
        } catch {
            let configuration = PipelineConfiguration.memoryOnly
            configuration.logger.warning(
                "ImagePipeline.shared keeps no disk cache: the default cache directory cannot be used",
                metadata: [
                    "directory": "\(PipelineConfiguration.defaultCacheDirectory.path)", "error": .redacted(error)
                ])
            do {
                return try ImagePipeline(configuration: configuration)
            } catch {
                // The memory-only defaults name only standard plugins and valid limits.
                preconditionFailure("the default memory-only pipeline cannot be built: \(error)")
            }
        }
    }
}
