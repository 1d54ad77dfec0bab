import FixtureServer
import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `trove serve --otel` against a real OTLP/HTTP receiver (scripts/otlp_receiver.py: PyPI's
/// opentelemetry-proto decodes the protobuf export and writes each span as a JSON line): the span tree of a
/// cold transform under a client's `traceparent`, the `traceparent` the origin receives, the resource
/// attributes; and a collector that is down costs a request nothing.
@Suite(.serialized) struct OpenTelemetryServeTests {
    static let clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let clientSpan = "00f067aa0ba902b7"
    static let route = "/{signature}/{options}/{source}"
    static let stages = [
        "trove.memory", "trove.processed_disk", "trove.original_disk", "trove.fetch",
        "trove.decode", "trove.transform", "trove.store"
    ]

    @Test func aColdTransformExportsOneTreeUnderTheClientsSpan() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = try FixtureServer(serving: Fixtures.images, under: "/")
        try await origin.start()
        let output = work.appendingPathComponent("spans.jsonl")
        let collector = try await OTLPReceiver.start(writingTo: output)
        let log = work.appendingPathComponent("serve.log")
        let server = try await Self.server(work, collectorPort: collector.port, errorLog: log)

        let answer = await get(
            port: server.port, path: "/insecure/rs:fit:50:50/plain/\(origin.url("/tiles.png").absoluteString)@png",
            headers: ["traceparent": "00-\(Self.clientTrace)-\(Self.clientSpan)-01"])
        #expect(answer?.status == 200)
        // The server span ends last, after the response: once it is exported, every span of the request is.
        let spans = try await Self.spans(in: output, trace: Self.clientTrace, until: "GET \(Self.route)")
        // A line logged inside a traced request carries its trace: a source that is not there is remembered.
        let otherTrace = "0af7651916cd43dd8448eb211c80319c"
        let missing = await get(
            port: server.port, path: "/insecure/plain/\(origin.url("/none.png"))@png",
            headers: ["traceparent": "00-\(otherTrace)-b7ad6b7169203331-01"])
        #expect(missing?.status == 404)
        try await Task.sleep(for: .milliseconds(200))
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let remembered = lines.filter { $0.contains("remembering lasting failure") }
        #expect(remembered.count == 1 && remembered.allSatisfy { $0.contains("trace_id=\(otherTrace)") }, "\(lines)")
        await server.stop()
        collector.stop()
        await origin.stop()

        let request = try #require(spans.first { $0.kind == 2 }, "\(spans.map(\.name))")
        #expect(request.name == "GET \(Self.route)")
        #expect(request.parent == Self.clientSpan)
        #expect(request.attributes["http.response.status_code"] as? Int == 200)
        // The route only: a source in the path may carry a query or token, so the path is not exported.
        #expect(request.attributes["http.route"] as? String == Self.route)
        #expect(request.attributes["url.path"] == nil)
        let image = try #require(spans.first { $0.name == "trove.image" })
        #expect(image.parent == request.id)
        #expect(image.attributes["trove.source"] as? String == "network")
        let children = spans.filter { $0.parent == image.id }.map(\.name)
        #expect(Set(children) == Set(Self.stages), "\(children)")
        #expect(children.count == Self.stages.count)
        #expect(spans.count == Self.stages.count + 2, "\(spans.map(\.name))")
        #expect(request.resource["service.name"] as? String == "trove-tests")
        #expect(request.resource["deployment.environment"] as? String == "test")
        // The origin got a traceparent in the client's trace, from the trove.fetch span.
        let fetch = try #require(spans.first { $0.name == "trove.fetch" })
        let sent = try #require(origin.requestLog(for: "/tiles.png").first?.headers["traceparent"])
        #expect(sent == "00-\(Self.clientTrace)-\(fetch.id)-01")
    }

    @Test func aClosedCollectorNeitherFailsNorSlowsARequest() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = try FixtureServer(serving: Fixtures.images, under: "/")
        try await origin.start()
        // Nothing listens there: every export fails to connect.
        let server = try await Self.server(work, collectorPort: try freeLoopbackPort())
        for index in 0..<5 {
            let started = ContinuousClock.now
            let answer = await get(
                port: server.port, path: "/insecure/rs:fit:\(40 + index):40/plain/\(origin.url("/tiles.png"))@png",
                headers: ["traceparent": "00-\(Self.clientTrace)-\(Self.clientSpan)-01"])
            #expect(answer?.status == 200)
            #expect(ContinuousClock.now - started < .seconds(2))
            try await Task.sleep(for: .milliseconds(150))
        }
        await server.stop()
        await origin.stop()
    }

    /// `trove serve --otel` exporting to 127.0.0.1:`collectorPort` every 100 ms, logging at info into
    /// `errorLog` when given, with its cache in `work`/`cache` and `extra` arguments; started.
    static func server(
        _ work: URL, collectorPort: Int, errorLog: URL? = nil, cache: String = "cache", extra: [String] = []
    ) async throws -> TroveServeProcess {
        let server = TroveServeProcess(
            port: try freeLoopbackPort(),
            arguments: [
                "--cache-dir", work.appendingPathComponent(cache).path, "--allow-loopback-sources", "--otel",
                "--health-grace", "0", "--drain-seconds", "5", "--log-level", errorLog == nil ? "error" : "info"
            ] + extra,
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collectorPort)",
                "OTEL_SERVICE_NAME": "trove-tests", "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=test",
                "OTEL_TRACES_SAMPLER": "parentbased_always_on", "OTEL_BSP_SCHEDULE_DELAY": "100"
            ], errorLog: errorLog)
        try await server.start()
        return server
    }

    /// The spans of `trace` the receiver wrote, once one named `last` is among them (within 20 s). Wait for the
    /// span that ends last: spans are exported in batches, so one that ends a moment later (the server span
    /// after `trove.image`) may come in the next batch.
    static func spans(in file: URL, trace: String, until last: String) async throws -> [ExportedSpan] {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            let spans = text.split(separator: "\n").compactMap { ExportedSpan(json: String($0)) }
                .filter { $0.trace == trace }
            if spans.contains(where: { $0.name == last }) || ContinuousClock.now > deadline { return spans }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// One span as the receiver wrote it.
struct ExportedSpan {
    let trace: String
    let id: String
    let parent: String
    let name: String
    /// OTLP's `SpanKind`: 1 internal, 2 server, 3 client.
    let kind: Int
    let attributes: [String: Any]
    let resource: [String: Any]

    init?(json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let trace = object["trace_id"] as? String, let id = object["span_id"] as? String,
            let parent = object["parent_span_id"] as? String, let name = object["name"] as? String,
            let kind = object["kind"] as? Int
        else { return nil }
        (self.trace, self.id, self.parent, self.name, self.kind) = (trace, id, parent, name, kind)
        attributes = object["attributes"] as? [String: Any] ?? [:]
        resource = object["resource"] as? [String: Any] ?? [:]
    }
}

/// scripts/otlp-receiver.sh on a free loopback port (installing opentelemetry-proto into .build-venv on
/// first use), until `stop`.
final class OTLPReceiver {
    let port: Int
    private let process: Process

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    static func start(writingTo output: URL) async throws -> OTLPReceiver {
        let port = try freeLoopbackPort()
        let process = Process()
        process.executableURL = Fixtures.root.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/otlp-receiver.sh")
        process.arguments = [String(port), output.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let receiver = OTLPReceiver(port: port, process: process)
        // The first run installs the package: allow for it.
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline, process.isRunning {
            if await get(port: port, path: "/", timeout: 2)?.status == 404 { return receiver }
            try await Task.sleep(for: .milliseconds(200))
        }
        receiver.stop()
        throw TestServerError(description: "the OTLP receiver did not start on port \(port)")
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
