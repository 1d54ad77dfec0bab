import TroveCore

/// The messages Trove gives for Redis failures, in one place so every path words them alike.
enum RedisFailure {
    /// Whether a server error reply means the credentials are wrong (or missing) rather than an outage.
    static func isAuthenticationError(_ message: String) -> Bool {
        let upper = message.uppercased()
        return upper.hasPrefix("WRONGPASS") || upper.hasPrefix("NOAUTH") || upper.hasPrefix("NOPERM")
            || upper.hasPrefix("ERR INVALID PASSWORD") || upper.hasPrefix("ERR INVALID USERNAME")
            // Sent when the URL has a password but the server has none configured.
            || (upper.hasPrefix("ERR AUTH") && upper.contains("WITHOUT ANY PASSWORD"))
    }

    /// A wrong or missing password: a configuration mistake, reported rather than treated as an outage.
    static func authentication(_ configuration: RedisConfiguration, serverMessage: String) -> TroveError {
        .invalidConfiguration(
            "redis authentication failed for \(configuration.endpoint) as "
                + "\(configuration.userForMessages): \(serverMessage); check the password in the redis:// URL")
    }

    /// The server answered `command` with an error: credentials problems are configuration errors,
    /// everything else (OOM, READONLY, LOADING, ...) makes the tier unavailable for now.
    static func serverError(_ configuration: RedisConfiguration, command: String, message: String) -> TroveError {
        if isAuthenticationError(message) { return authentication(configuration, serverMessage: message) }
        return .sharedTierUnavailable(reason: "redis at \(configuration.endpoint) refused \(command): \(message)")
    }

    /// The server answered `command` with a reply of the wrong kind.
    static func unexpectedReply(_ configuration: RedisConfiguration, command: String, reply: RESPValue) -> TroveError {
        .sharedTierUnavailable(
            reason: "redis at \(configuration.endpoint) answered \(command) with an unexpected "
                + "reply (\(String(describing: reply).prefix(80)))")
    }

    /// Transport trouble: refused, reset, closed, timed out.
    static func unavailable(_ configuration: RedisConfiguration, _ what: String) -> TroveError {
        .sharedTierUnavailable(reason: "redis at \(configuration.endpoint): \(what)")
    }
}
