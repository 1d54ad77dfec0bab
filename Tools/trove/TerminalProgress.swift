import Foundation
import Synchronization

/// A one-line progress display on stderr, drawn only when stderr is a terminal (so pipes and CI logs
/// stay clean) and at most every 50 ms.
final class TerminalProgress: Sendable {
    private let enabled: Bool
    private let lastDraw = Mutex<ContinuousClock.Instant?>(nil)

    init() {
        enabled = isatty(FileHandle.standardError.fileDescriptor) != 0
    }

    func update(_ text: @autoclosure () -> String) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let due = lastDraw.withLock { last -> Bool in
            if let last, now - last < .milliseconds(50) { return false }
            last = now
            return true
        }
        if due { FileHandle.standardError.write(Data(("\r\u{1B}[K" + text()).utf8)) }
    }

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    static func bytes(_ count: Int64) -> String {
        count < 1 << 20
            ? String(format: "%.1f KB", Double(count) / 1024) : String(format: "%.1f MB", Double(count) / 1_048_576)
    }
}
