import Logging
import Synchronization

/// Keeps every log line (message and metadata, as text) so a test can read what a client logged.
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    /// Records nothing yet.
    public init() {}

    /// A logger at trace level whose lines land here.
    public func logger(label: String = "trove.test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every line so far: level, message and metadata.
    public var recorded: [String] { lines.withLock { $0 } }

    fileprivate func record(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.record("\(event.level) \(event.message) \(all.sorted { $0.key < $1.key })")
        }
    }
}
