import Foundation
import Logging

extension Logger.MetadataValue {
    /// A source URL as the pipeline's log lines show it: as spans do (`URL.redactedForSpans`), with no user
    /// info, query (a signature, a token) or fragment.
    package static func redacted(_ url: URL) -> Self {
        .string(url.redactedForSpans)
    }

    /// Text that may hold source URLs (an error's, a cache key's) with each one redacted
    /// (`URL.redactingURLs(in:)`): a `TroveError` names its URL with the query.
    package static func redacted(_ text: String) -> Self {
        .string(URL.redactingURLs(in: text))
    }

    /// An error's text with each URL in it redacted.
    package static func redacted(_ error: any Error) -> Self {
        .redacted("\(error)")
    }
}
