import Foundation
import Logging
import TroveCore
import TroveDiskCache

/// A pipeline's defence against sources that crash it (`PipelineConfiguration.crashGuard`): the journal
/// records what each thread works on, and sources a crash was traced to are refused for a while. What the
/// last process left in the journal is turned into marks when the pipeline is made.
final class CrashGuard: Sendable {
    private let journal: CrashJournal
    private let poisoned: PoisonedSources
    private let metrics: PipelineMetrics
    /// Marks of the journal the last process left, written before the first check reads them.
    private let recovery: Task<Void, Never>

    /// Nil without a cache directory (there is nowhere to keep the journal) or when it cannot be mapped.
    init?(
        ttl: Duration, cacheDirectory: URL?, shared: SharedTierAccess?, metrics: PipelineMetrics, logger: Logger
    ) {
        guard let cacheDirectory else { return nil }
        do {
            journal = try CrashJournal(directory: cacheDirectory)
        } catch {
            logger.error("no crash journal: \(error)")
            return nil
        }
        let poisoned = PoisonedSources(ttl: ttl, cacheDirectory: cacheDirectory, shared: shared, logger: logger)
        self.poisoned = poisoned
        self.metrics = metrics
        let recovered = journal.recovered
        for _ in recovered.crashed { metrics.record(.poisonedSourceMarked) }
        recovery = Task { await poisoned.record(recovered) }
    }

    /// Throws `poisonedSource` for a source a crash was traced to, here or anywhere in the fleet.
    func check(_ source: String, url: URL) async throws {
        await recovery.value
        guard let mark = await poisoned.mark(of: CrashJournal.name(of: source)) else { return }
        metrics.record(.poisonedSourceRefused)
        throw TroveError.poisonedSource(url: url.absoluteString, cause: mark.cause, until: mark.until)
    }

    /// Runs `body` with `source` in this thread's journal entry.
    func around<T>(_ source: String, _ body: () throws -> T) rethrows -> T {
        try journal.around(source, body)
    }

    /// Forgets `source`'s mark here and in the shared tier; returns whether there was one.
    func forget(_ source: String) async -> Bool {
        await recovery.value
        return await poisoned.forget(CrashJournal.name(of: source))
    }
}
