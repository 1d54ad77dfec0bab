/// Runs `body`, then `cleanup` whether `body` returned or threw: what `defer` does, for a cleanup that must
/// be awaited (stopping a server process, shutting a client down).
public func withCleanup<T: Sendable>(
    _ body: () async throws -> T, finally cleanup: () async -> Void
) async throws -> T {
    do {
        let result = try await body()
        await cleanup()
        return result
    } catch {
        await cleanup()
        throw error
    }
}
