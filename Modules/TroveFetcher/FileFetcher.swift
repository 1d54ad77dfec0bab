import Dispatch
import Foundation
import TroveCore

/// Reads file:// URLs. The read runs on a dispatch queue, not on Swift's cooperative pool, because
/// it blocks.
package struct FileFetcher: Fetcher {
    /// Registered as "file".
    package let name = "file"
    /// Serves `file://` URLs.
    package let schemes: Set<String> = ["file"]
    private static let queue = DispatchQueue(label: "trove.file-fetcher", attributes: .concurrent)

    /// A fetcher that reads local files.
    package init() {}

    /// The file's bytes; a missing or unreadable file throws, and a file over `maxBytes` throws `tooLarge`.
    package func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        let url = request.url
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            Self.queue.async {
                continuation.resume(with: Result { try Self.read(url, maxBytes: request.maxBytes) })
            }
        }
        progress(FetchProgress(received: Int64(data.count), expected: Int64(data.count)))
        return .data(data, ResponseMetadata(url: url, statusCode: 200, expectedLength: Int64(data.count)))
    }

    private static func read(_ url: URL, maxBytes: Int) throws -> Data {
        let path = url.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw TroveError.ioFailed(path: path, reason: "no such file; check the path")
        }
        if let size = attributes[.size] as? Int, size > maxBytes {
            throw TroveError.tooLarge(url: url.absoluteString, limit: maxBytes)
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw TroveError.ioFailed(path: path, reason: error.localizedDescription)
        }
    }
}
