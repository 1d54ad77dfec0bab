import Foundation

/// Where every answer is recorded, once: its status and time in the metrics, and its access line. The
/// router's answers come here through `AnswerRecordingMiddleware`, the hits answered on the event loop
/// through `CachedResultAnswers`, so both are counted and logged alike.
struct AnswerRecorder: Sendable {
    let metrics: ServerMetrics
    /// Nil when access lines are not written.
    let accessLog: AccessLog?

    /// Records an answer begun at `started`; `bytes` is its `Content-Length` ("0" for none).
    func record(method: String, path: String, status: Int, bytes: String, started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        metrics.answered(status: status, after: elapsed)
        accessLog?.append(
            AccessLog.Record(time: Date(), method: method, path: path, status: status, bytes: bytes, elapsed: elapsed))
    }
}
