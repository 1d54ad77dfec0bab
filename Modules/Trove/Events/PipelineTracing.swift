import Foundation
import Tracing
import TroveCore

/// The pipeline's spans (swift-distributed-tracing): one for each stage a request really takes, started by
/// the orchestrator (`ImagePipeline`, `ImagePipeline+Original.swift` included) around the stage's call, never inside a stage, as
/// children of the current span (`ServiceContext.current`: the caller's own, then the request's root). Off
/// when the configuration names no tracer and none is bootstrapped: then no span is made, no header is
/// sent, and each stage costs one nil check.
struct PipelineTracing: Sendable {
    /// Nil when tracing is off.
    let tracer: (any Tracer)?

    /// The configured tracer, else the process's bootstrapped one (`InstrumentationSystem.tracer`); off when
    /// that is the no-op tracer. Read once, when the pipeline is built: the bootstrap comes first.
    init(_ configured: (any Tracer)?) {
        let tracer = configured ?? InstrumentationSystem.tracer
        self.tracer = tracer is NoOpTracer ? nil : tracer
    }

    /// Runs `body` in a span named `name`, a child of the current span, made current for `body`; ended when
    /// `body` returns, with the error recorded and the status set to error when it throws. Without a tracer,
    /// `body` runs with nil and nothing else happens.
    func span<T>(
        _ name: String, at start: DefaultTracerClock.Instant? = nil,
        _ body: ((any Span)?) async throws -> T
    ) async throws -> T {
        guard let tracer else { return try await body(nil) }
        let span = tracer.startSpan(
            name, context: ServiceContext.current ?? .topLevel, ofKind: .internal,
            at: start ?? DefaultTracerClock.now, function: name, file: #fileID, line: #line)
        defer { span.end() }
        do {
            return try await ServiceContext.withValue(span.context) { try await body(span) }
        } catch {
            span.failed(error)
            throw error
        }
    }

    /// A memory lookup begun at `start` and over now, as a `trove.memory` span: a child of the current span
    /// (the caller's, for a hit, which has no root of its own; the request's root, for a miss).
    func memoryLookup(since start: DefaultTracerClock.Instant, hit: Bool, bytes: Int? = nil) {
        guard let tracer else { return }
        let span = tracer.startSpan(
            "trove.memory", context: ServiceContext.current ?? .topLevel, ofKind: .internal, at: start,
            function: "trove.memory", file: #fileID, line: #line)
        span.attributes["trove.hit"] = hit
        if hit { span.attributes["trove.source"] = ResultSource.memory.rawValue }
        if let bytes { span.attributes["trove.bytes"] = bytes }
        span.end()
    }

    /// Adds the propagation headers of `span` (W3C `traceparent` with an OpenTelemetry tracer) to `headers`;
    /// nothing without a tracer.
    func inject(_ span: (any Span)?, into headers: inout [String: String]) {
        guard let tracer, let span else { return }
        tracer.inject(span.context, into: &headers, using: HeaderInjector())
    }
}

/// Sets header fields, for `Tracer.inject`.
private struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}

extension Span {
    /// Records a failure without what its text may hold unredacted (a `TroveError` names the source URL
    /// with its query): `error.type`, the kind the metrics count it under, an `exception` event with that
    /// kind and the text with each URL in it redacted (`URL.redactedForSpans`), and status error with the
    /// same text.
    func failed(_ error: any Error) {
        let kind = FailureKind(error).rawValue
        let message = URL.redactingURLs(in: String(describing: error))
        attributes["error.type"] = kind
        addEvent(
            SpanEvent(
                name: "exception",
                attributes: ["exception.type": .string(kind), "exception.message": .string(message)]))
        setStatus(SpanStatus(code: .error, message: message))
    }

    /// The URL a request is for, redacted (`URL.redactedForSpans`), as `url.full`.
    func record(url: URL) {
        attributes["url.full"] = url.redactedForSpans
    }

    /// An image's size and format, under `trove.input` (what was decoded) or `trove.output` (what was made),
    /// and its bytes as `trove.bytes` when given: one write of the span's attributes.
    func record(_ side: ImageSide, width: Int, height: Int, format: ImageFormat, bytes: Int? = nil) {
        updateAttributes { attributes in
            attributes.record(side, width: width, height: height, format: format)
            if let bytes { attributes["trove.bytes"] = bytes }
        }
    }
}

/// Which image a span's size attributes describe; the keys are literals, so setting one builds no string.
enum ImageSide {
    /// `trove.input`: what was decoded.
    case input
    /// `trove.output`: what was made.
    case output
}

extension SpanAttributes {
    /// `side`'s `.width`, `.height` and `.format`.
    mutating func record(_ side: ImageSide, width: Int, height: Int, format: ImageFormat) {
        switch side {
        case .input:
            self["trove.input.width"] = width
            self["trove.input.height"] = height
            self["trove.input.format"] = format.rawValue
        case .output:
            self["trove.output.width"] = width
            self["trove.output.height"] = height
            self["trove.output.format"] = format.rawValue
        }
    }
}

extension Span {
    /// What the original on disk had: a hit (fresh, or any copy for `cacheOnly`), a stale copy, or nothing.
    func record(_ found: OriginalDiskStage.Found) {
        updateAttributes { attributes in
            switch found {
            case let .answer(result):
                attributes["trove.hit"] = true
                attributes["trove.source"] = ResultSource.disk.rawValue
                attributes["trove.bytes"] = result.data.count
                if result.isStale { attributes["trove.stale"] = true }
            case .stale:
                attributes["trove.hit"] = false
                attributes["trove.stale"] = true
            case .nothing:
                attributes["trove.hit"] = false
            }
        }
    }

    /// What the shared tier had: a hit, or a miss (and whether this process holds the key's lease).
    func record(_ found: SharedTierStage.Found) {
        updateAttributes { attributes in
            switch found {
            case let .hit(result):
                attributes["trove.hit"] = true
                attributes["trove.source"] = ResultSource.shared.rawValue
                attributes["trove.bytes"] = result.data.count
            case let .miss(lease):
                attributes["trove.hit"] = false
                attributes["trove.lease"] = lease != nil
            }
        }
    }

    /// What the origin answered: the status and the body's bytes, or 304.
    func record(_ answer: OriginAnswer) {
        updateAttributes { attributes in
            switch answer {
            case let .fetched(result):
                attributes["http.response.status_code"] = result.status
                attributes["trove.bytes"] = result.streamedLength ?? result.data.count
            case .notModified:
                attributes["http.response.status_code"] = 304
            }
        }
    }
}

extension Span {
    /// A failed attempt about to be retried, as a `trove.retry` event: which attempt failed (from 0), the
    /// kind of failure, and the wait before the next.
    func recordRetry(after attempt: Int, _ error: any Error, delay: Duration) {
        addEvent(
            SpanEvent(
                name: "trove.retry",
                attributes: [
                    "trove.attempt": .int64(Int64(attempt)),
                    // The kind the metrics count it under: an error's text may hold the URL unredacted.
                    "error.type": .string(FailureKind(error).rawValue),
                    "trove.retry.delay_ms": .int64(Int64(delay / .milliseconds(1)))
                ]))
    }
}
