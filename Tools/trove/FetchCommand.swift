import ArgumentParser
import Foundation
import Trove

/// `trove fetch`: plain data (JSON, any file) through the `DataPipeline`: memory, disk, the shared tier and
/// the origin, with any method. GET and HEAD use the caches; another method does only with
/// `--cache-non-get`, keyed by method, body digest and URL.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch URLs as plain data through the caches (any bytes; any method).")

    @OptionGroup var common: CommonOptions

    @Argument(help: "http(s), file or data URLs (a plain path is read as a file).")
    var urls: [String]

    @Option(
        name: .shortAndLong,
        help: "Write the body here (a directory when several URLs are given; - for standard output, one URL).")
    var output: String?

    @Option(help: "HTTP method (default GET).")
    var method = "GET"

    @Option(help: ArgumentHelp("Send this file as the request body (- reads standard input).", valueName: "file"))
    var body: String?

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp("A request header, 'Name: value'; repeat for more.", valueName: "header"))
    var headers: [String] = []

    @Flag(
        name: .customLong("cache-non-get"),
        help: "Cache the answers to methods other than GET and HEAD, keyed by method, body digest and URL.")
    var cacheNonGet = false

    @Option(
        help: """
            Cache policy: use-cache, reload, cache-only, refresh (revalidate what is cached), http (use-cache \
            with RFC 9111's heuristic: 10% of the time since Last-Modified).
            """)
    var policy: GetCommand.PolicyArgument = .useCache

    @Flag(
        name: [.customShort("i"), .customLong("include")],
        help: "Print the status line and the response header fields first, as curl -i does.")
    var include = false

    @Flag(name: .customLong("retry-failed"), help: "Fetch even URLs that failed recently for a lasting reason.")
    var retryFailed = false

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var shared: SharedCacheOptions

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        guard !method.isEmpty, method.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) else {
            throw ValidationError("--method must be an HTTP method such as GET or POST, got '\(method)'")
        }
        _ = try Self.parsedHeaders(headers)
        if output == "-", urls.count != 1 || common.json {
            throw ValidationError("-o - writes one body to standard output: give one URL and no --json")
        }
    }

    /// `Name: value` lines as a dictionary, repeated names (in any case) joined as one list value (RFC 9110
    /// §5.3); a line without a name and a colon is bad usage.
    static func parsedHeaders(_ lines: [String]) throws -> [String: String] {
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                throw ValidationError("--header must be 'Name: value', got '\(line)'")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(where: { $0 == " " || !$0.isASCII }) else {
                throw ValidationError(
                    "--header must be 'Name: value' with a name of letters, digits and -, got '\(line)'")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let earlier = headers.keys.first(where: { $0.lowercased() == name.lowercased() }) {
                headers[earlier] = headers[earlier].map { "\($0), \(value)" }
            } else {
                headers[name] = value
            }
        }
        return headers
    }

    func run() async throws {
        var configuration = try common.pipelineConfiguration()
        cache.apply(to: &configuration)
        policy.apply(to: &configuration)
        fetch.apply(to: &configuration)
        try shared.apply(to: &configuration)
        let pipeline: DataPipeline
        do {
            pipeline = try DataPipeline(registry: TroveRegistry.make(), configuration: configuration)
        } catch let error as TroveError {
            throw ValidationError(error.description)
        }
        let requestBody = try readBody()
        let headers = try Self.parsedHeaders(headers)
        let requests = try urls.map { text in
            var request = DataRequest(
                url: try GetCommand.url(from: text), cachePolicy: policy.cachePolicy, retryFailed: retryFailed,
                headers: headers)
            request.method = method
            request.body = requestBody
            request.cachesOtherMethods = cacheNonGet
            return request
        }
        let outputs = try outputPaths(for: requests)
        var failures = 0
        // One at a time, in the order given: the lines come out as the URLs went in.
        for (index, request) in requests.enumerated() where !(await load(request, pipeline, output: outputs[index])) {
            failures += 1
        }
        // Disk writes are write-behind: what was fetched is on disk when the process exits.
        await pipeline.flush()
        await pipeline.sharedTier?.shutdown()
        if failures > 0 { throw ExitCode(1) }
    }

    /// Loads one request and reports it; false when it failed.
    private func load(_ request: DataRequest, _ pipeline: DataPipeline, output: URL?) async -> Bool {
        let start = ContinuousClock.now
        do {
            let response = try await pipeline.data(for: request)
            let elapsed = ContinuousClock.now - start
            if include { printHead(status: response.status, response.headerFields) }
            if output == nil, self.output == "-" {
                FileHandle.standardOutput.write(response.data)
                return true
            }
            // A 304 has no body: the copy the caller's condition named stays as it is, as curl leaves it.
            if let output, response.status != 304 { try response.data.write(to: output, options: .atomic) }
            let source = response.source.rawValue
            if common.json {
                printJSONLine(
                    FetchReport(
                        url: request.url.absoluteString, status: "ok", source: source, bytes: response.data.count,
                        ms: elapsed.milliseconds, stale: response.isStale, contentType: response.contentType,
                        httpStatus: response.status, headers: response.headerFields.map { [$0.name, $0.value] }))
            } else {
                print(
                    "\(source.padding(toLength: 8, withPad: " ", startingAt: 0))\(response.isStale ? " (stale)" : "") "
                        + "\(response.data.count) B " + String(format: "%.1f ms", elapsed.milliseconds)
                        + "  \(request.url.absoluteString)")
            }
            return true
        } catch {
            let message = (error as? TroveError)?.description ?? String(describing: error)
            let status = (error as? TroveError)?.httpStatusCode
            if include, let status { printHead(status: status, []) }
            printError("trove fetch: \(message)")
            if common.json {
                printJSONLine(
                    FetchReport(
                        url: request.url.absoluteString, status: "failed",
                        ms: (ContinuousClock.now - start).milliseconds, error: message, httpStatus: status))
            }
            return false
        }
    }

    /// `-i`: the status line, one line per header field and a blank line, as curl -i prints them.
    private func printHead(status: Int, _ fields: [HeaderField]) {
        var head = "HTTP/1.1 \(status) \(HTTPReason.phrase(for: status))\r\n"
        for field in fields { head += "\(field.name): \(field.value)\r\n" }
        FileHandle.standardOutput.write(Data((head + "\r\n").utf8))
    }

    /// The body to send: the file's bytes, standard input's for -, or none.
    private func readBody() throws -> Data? {
        guard let body else { return nil }
        if body == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: body))
        } catch {
            throw ValidationError("cannot read the body file \(body): \(error.localizedDescription)")
        }
    }

    /// Where each body is written: nil for none (and for -, which goes to standard output).
    private func outputPaths(for requests: [DataRequest]) throws -> [URL?] {
        guard let output, output != "-" else { return requests.map { _ in nil } }
        let target = URL(fileURLWithPath: output)
        if requests.count == 1 { return [target] }
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        return requests.enumerated().map { index, request in
            let name = request.url.lastPathComponent.isEmpty ? "result" : request.url.lastPathComponent
            return target.appendingPathComponent("\(index)-\(name)")
        }
    }
}

/// One `trove fetch --json` line: `status` is ok or failed; a failure has `error` and no source.
/// `httpStatus` is the answer's HTTP status (a failure's too, when the origin gave one) and `headers` its
/// header fields in order, each `[name, value]` (for a cached answer: as stored, with its `Age`).
struct FetchReport: Encodable {
    let url: String
    let status: String
    var source: String?
    var bytes: Int?
    let ms: Double
    var stale: Bool?
    var contentType: String?
    var error: String?
    var httpStatus: Int?
    var headers: [[String]]?

    init(
        url: String, status: String, source: String? = nil, bytes: Int? = nil, ms: Double, stale: Bool? = nil,
        contentType: String? = nil, error: String? = nil, httpStatus: Int? = nil, headers: [[String]]? = nil
    ) {
        (self.url, self.status, self.source, self.bytes, self.ms) = (url, status, source, bytes, ms)
        (self.stale, self.contentType, self.error) = (stale, contentType, error)
        (self.httpStatus, self.headers) = (httpStatus, headers)
    }
}

extension TroveError {
    /// The HTTP status the origin answered with, for a failure that is one; 504 for a miss that was not to
    /// reach the network (`--cache-only`, `Cache-Control: only-if-cached`), the status RFC 9111 §5.2.1.7 has
    /// a cache answer it with.
    var httpStatusCode: Int? {
        switch self {
        case let .httpStatus(status, _): status
        case let .serverBusy(status, _, _): status
        case .notCached: 504
        default: nil
        }
    }
}

/// Reason phrases for `trove fetch -i`'s status line (RFC 9110 §15); another status gets none.
enum HTTPReason {
    static func phrase(for status: Int) -> String {
        let phrases = [
            200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
            205: "Reset Content", 206: "Partial Content", 300: "Multiple Choices", 301: "Moved Permanently",
            302: "Found", 303: "See Other", 304: "Not Modified", 307: "Temporary Redirect",
            308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            405: "Method Not Allowed", 410: "Gone", 429: "Too Many Requests", 500: "Internal Server Error",
            502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"
        ]
        return phrases[status] ?? ""
    }
}
