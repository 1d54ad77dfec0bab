import FixtureServer
import Foundation
import Trove

/// One step as `trove fetch` takes it: a new `DataPipeline` on `directory` (so memory starts empty), one
/// request, its disk writes flushed.
func fetchOnce(
    _ url: URL, in directory: URL, headers: [String: String] = [:], method: String = "GET", body: Data? = nil,
    policy: CachePolicy = .useCache, _ adjust: (inout PipelineConfiguration) -> Void = { _ in }
) async throws -> DataResponse {
    let pipeline = try makeDataPipeline(directory, adjust)
    var request = DataRequest(url: url, cachePolicy: policy, headers: headers)
    request.method = method
    request.body = body
    let response = try await pipeline.data(for: request)
    await pipeline.flush()
    return response
}

/// A data pipeline on `directory` without retry delays.
func makeDataPipeline(
    _ directory: URL, _ adjust: (inout PipelineConfiguration) -> Void = { _ in }
) throws -> DataPipeline {
    var configuration = PipelineConfiguration(cacheDirectory: directory)
    configuration.retryPolicy = .none
    adjust(&configuration)
    return try DataPipeline(configuration: configuration)
}

/// A text answer with these header lines, in order (a name may repeat), and this status.
func textRoute(_ body: String, status: Int = 200, _ fields: [(String, String)]) -> FixtureServer.Route {
    .withFieldLines(
        fields.map { (name: $0.0, value: $0.1) },
        .response(status: status, headers: ["Content-Type": "text/plain"], body: Data(body.utf8)))
}

/// An IMF-fixdate `offset` seconds from now.
func httpDate(_ offset: TimeInterval) -> String {
    FixtureServer.httpDate(Date().addingTimeInterval(offset))
}

extension DataResponse {
    /// The body as text.
    var text: String { String(decoding: data, as: UTF8.self) }

    /// The first value of the header field `name` (any case).
    func field(_ name: String) -> String? {
        headerFields.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
