import Foundation
import TroveCore

/// The crash guard as the stages use it, by URL: sources are named as cache keys name them
/// (`CacheKeyRule.source(for:)`). Does nothing without a crash guard.
struct SourceGuard: Sendable {
    let crashGuard: CrashGuard?
    let keyRule: CacheKeyRule

    /// Throws `poisonedSource` when a crash was traced to `url`'s source (`PipelineConfiguration.crashGuard`).
    func refusePoisoned(_ url: URL) async throws {
        try await crashGuard?.check(keyRule.source(for: url), url: url)
    }

    /// Runs `body`, synchronous work on `url`'s source, with the source in the crash journal.
    func journaling<T>(_ url: URL, _ body: () throws -> T) rethrows -> T {
        guard let crashGuard else { return try body() }
        return try crashGuard.around(keyRule.source(for: url), body)
    }
}

extension ImagePipeline {
    /// As the pipeline's own decodes do, for other work on a source's bytes (an app's, or a server's
    /// `/info`): throws `poisonedSource` for a source a crash was traced to, else runs `body` with the source
    /// in the crash journal.
    package func guardingCrashes<T>(_ url: URL, _ body: () throws -> T) async throws -> T {
        try await parts.sourceGuard.refusePoisoned(url)
        return try parts.sourceGuard.journaling(url, body)
    }
}
