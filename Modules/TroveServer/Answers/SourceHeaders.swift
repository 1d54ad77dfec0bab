import Foundation
import Synchronization
import Trove
import TroveCore

/// The caching headers each source's origin last sent (`Last-Modified`, `Cache-Control`, the expiry that
/// `Expires` gave), recorded by `HeaderRecordingFetcher` for `--use-last-modified` and
/// `--cache-control-passthrough`. Kept in memory for the sources fetched since the server started, up to
/// `limit` of them; a source read from a disk cache filled before a restart has none until it is fetched again.
final class SourceHeaders: Sendable {
    /// What one source's response said.
    struct Entry: Sendable, Equatable {
        let lastModified: String?
        let cacheControl: String?
        /// `Expires` as an HTTP date, when the response gave no `Cache-Control` but an expiry.
        let expires: String?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let limit: Int

    init(limit: Int = 100_000) {
        self.limit = limit
    }

    /// Records a response's headers under the URL it was asked for.
    func record(_ metadata: ResponseMetadata, for url: URL, at now: Date = Date()) {
        var expires: String?
        if metadata.cacheControl == nil, let freshness = metadata.directives.freshness {
            expires = HTTPDateText.format(now.addingTimeInterval(Double(freshness.components.seconds)))
        }
        let entry = Entry(
            lastModified: metadata.validators.lastModified, cacheControl: metadata.cacheControl, expires: expires)
        entries.withLock { entries in
            // A simple bound: past the limit, start over rather than grow without end.
            if entries.count >= limit, entries[url.absoluteString] == nil { entries.removeAll(keepingCapacity: true) }
            entries[url.absoluteString] = entry
        }
    }

    /// The headers recorded for `url`, if it was fetched since the server started.
    func entry(for url: URL) -> Entry? {
        entries.withLock { $0[url.absoluteString] }
    }
}

/// A fetcher that hands every answer of the one it wraps to `SourceHeaders` on its way to the pipeline.
struct HeaderRecordingFetcher: Fetcher {
    let inner: any Fetcher
    let headers: SourceHeaders

    var name: String { inner.name }
    var schemes: Set<String> { inner.schemes }

    func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        let outcome = try await inner.fetch(request, progress: progress)
        if case let .data(_, metadata) = outcome { headers.record(metadata, for: request.url) }
        return outcome
    }

    func fetch(
        _ request: FetchRequest, into sink: any FetchBodySink, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws -> StreamedFetchOutcome {
        let outcome = try await inner.fetch(request, into: sink, progress: progress)
        if case let .streamed(metadata, _) = outcome { headers.record(metadata, for: request.url) }
        return outcome
    }
}

/// HTTP dates as servers send them (RFC 9110's IMF-fixdate).
enum HTTPDateText {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Sun, 06 Nov 1994 08:49:37 GMT".
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let weekday = days[Int((seconds / 86_400 % 7 + 7) % 7)]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
