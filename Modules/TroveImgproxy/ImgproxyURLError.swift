/// Why an imgproxy URL was refused, with the HTTP status to answer and a message safe to show to whoever
/// sent the URL: it names the option, argument or preset at fault and never an internal path or secret.
package struct ImgproxyURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400 (bad option, argument, preset or source), 403 (wrong or missing signature) or 404 (expired URL).
    package let status: Int
    /// What was wrong and what to do, for the response body.
    package let message: String

    /// An error with its status and message.
    package init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    /// The status and the message.
    package var description: String { "\(status): \(message)" }

    /// A 400 for the URL's processing options or source.
    static func badRequest(_ message: String) -> ImgproxyURLError {
        ImgproxyURLError(status: 400, message: message)
    }

    /// A 400 naming an option and the argument it could not use.
    static func badArgument(_ option: String, _ argument: String, _ expected: String) -> ImgproxyURLError {
        badRequest("invalid argument '\(clipped(argument))' for processing option '\(clipped(option))': \(expected)")
    }

    /// Text from the URL as quoted in a message: at most 64 characters, so an answer never grows with
    /// whatever a stranger sends.
    static func clipped(_ text: String) -> String {
        text.count <= 64 ? text : text.prefix(64) + "..."
    }

    /// The 403 for a signature that matches no configured key, or no signature at all.
    static let forbidden = ImgproxyURLError(
        status: 403,
        message: "invalid signature: sign the path after the signature segment with a configured key and salt")
}

/// A configuration value (key, salt, preset) that cannot be used; the message names it and says what to do.
public struct ImgproxyConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the setting, and what to give instead.
    package let message: String

    /// An error with its message.
    package init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
