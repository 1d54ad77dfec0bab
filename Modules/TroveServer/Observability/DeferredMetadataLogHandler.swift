import Logging

/// A `StreamLogHandler` whose metadata is formatted only when a message is written. Hummingbird gives
/// every request's logger its own request ID, and `StreamLogHandler` formats all of its metadata each
/// time a key is set: about 6% of a cached answer's time, paid even when nothing is logged.
package struct DeferredMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    /// Metadata set on the logger, merged under a message's own metadata when it is written.
    package var metadata: Logger.Metadata = [:]

    /// Writes to standard error, as swift-log's default handler does, so stdout carries only "listening on".
    package init(label: String) {
        stream = StreamLogHandler.standardError(label: label)
    }

    /// The least level written.
    package var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    /// Metadata added to every message from the task's context.
    package var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    /// One metadata value set on the logger.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes a message with the logger's metadata merged under its own.
    package func log(event: LogEvent) {
        guard !metadata.isEmpty else { return stream.log(event: event) }
        var event = event
        event.metadata = metadata.merging(event.metadata ?? [:]) { _, own in own }
        stream.log(event: event)
    }
}
