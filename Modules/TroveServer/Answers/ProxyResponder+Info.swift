import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Trove
import TroveFetcher
import TroveImgproxy
import TrovePlaceholders

/// `/info/SIGNATURE/...`: a source's header facts as JSON, through the same checks and gate as an image.
extension ProxyResponder {

    /// `/info/SIGNATURE/OPTIONS/plain/SOURCE` (`path` is what follows `/info`): the source's `SourceInfo` as
    /// JSON, signed and checked as an image URL is; kept in the result cache as results are.
    func info(path: String, request: Request, head: Bool) async -> Response {
        let cacheKey = "info\u{0}" + route.resultPath(forPath: path)
        if let hit = results?.value(forKey: cacheKey) {
            metrics.resultCacheHit()
            return answer(hit, conditions: AnswerConditions(request.headers), head: head).response
        }
        let plan: ProxyPlan
        do {
            plan = try route.plan(forPath: path)
            try sourcePolicy.check(plan.source)
            try checkWrittenAddress(of: plan.source)
        } catch {
            return failure(ProxyFailure(error), head: head)
        }
        let workKey = "info\u{0}" + plan.resultKey
        let served: ServedResult
        do {
            served = try await requestLimit.withRequest {
                let deadline = WholeRequestDeadline.starting(within: configuration.pipeline.requestDeadline)
                return try await productions.value(
                    forKey: workKey, deadline: deadline, onJoin: metrics.sharedResult
                ) { [self] _ in
                    try await gate.withAdmission(for: workKey) { try await sourceInfo(plan) }
                }
            }
        } catch {
            let failure = ProxyFailure(error)
            if failure.status >= 500 || failure.status == 404 || failure.status == 422 {
                logger.notice(
                    "info request failed", metadata: ["status": "\(failure.status)", "error": .redacted(error)])
            }
            return self.failure(failure, head: head)
        }
        return finish(served, plan: plan, cacheKey: cacheKey, request: request, head: head)
    }

    /// Reads the source's header (and, for formats without a row-streaming header, its pixels) for `/info`.
    private func sourceInfo(_ plan: ProxyPlan) async throws -> ServedResult {
        let options: ImageRequest.Options = results == nil ? [.skipsProcessedDiskStore] : []
        let source = try await pipeline.image(for: route.sourceRequest(for: plan, options: options))
        var info = try await pipeline.guardingCrashes(plan.source) {
            try SourceInfo.read(source.data, registry: route.registry, limits: configuration.pipeline.decodingLimits)
        }
        // Kept with the cached source: after the first /info of a source, neither is computed again.
        let request = route.sourceRequest(for: plan, options: options)
        info.thumbhash = try await pipeline.placeholder(for: request, kind: .thumbHash)
        info.blurhash = try await pipeline.placeholder(for: request, kind: .blurHash())
        return packed(info.json(), format: source.format, plan: plan, varies: false, contentType: "application/json")
    }
}
