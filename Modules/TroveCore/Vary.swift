import Foundation

/// One selecting header field of a stored response (RFC 9111 §4.1): a name its `Vary` listed (lower case)
/// and the value the request that got the response sent for it, normalised; nil when the request had none.
package struct SelectingField: Sendable, Hashable {
    /// The field name, lower case.
    package var name: String
    /// The request's value, normalised (`Vary.normalized`); nil when the request did not send the field.
    package var value: String?

    package init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// The `Vary` rules of RFC 9111 §4.1 for a private cache: which request fields select a stored response,
/// how their values are normalised, and whether a new request matches a stored one.
package enum Vary {
    /// What a response's `Vary` lines say.
    package enum Names: Equatable, Sendable {
        /// No `Vary`: the response suits every request for its URL.
        case none
        /// `*` among the names: no later request can be shown to match.
        case any
        /// These names, lower case, each once, in the order first given.
        case fields([String])
    }

    /// The names every `Vary` line of `fields` lists (empty members ignored).
    package static func names(in fields: [HeaderField]) -> Names {
        var names: [String] = []
        for line in fields.values(named: "vary") {
            for name in line.listedNames {
                if name == "*" { return .any }
                if !names.contains(name) { names.append(name) }
            }
        }
        return names.isEmpty ? .none : .fields(names)
    }

    /// The selecting fields of a request with these headers, for these names.
    package static func selecting(_ names: [String], in headers: [String: String]) -> [SelectingField] {
        names.map { SelectingField(name: $0, value: value(of: $0, in: headers)) }
    }

    /// Whether a request with these headers matches a response stored with `stored`: every selecting field
    /// present in both with the same normalised value, or absent from both.
    package static func matches(_ stored: [SelectingField], _ headers: [String: String]) -> Bool {
        stored.allSatisfy { value(of: $0.name, in: headers) == $0.value }
    }

    /// The request's normalised value for `name` (any case): several fields of the name are one list, as
    /// RFC 9110 §5.3 combines them. Nil when the request has none.
    static func value(of name: String, in headers: [String: String]) -> String? {
        var values: [String] = []
        for (field, value) in headers where field.caseInsensitiveEquals(name) { values.append(value) }
        guard !values.isEmpty else { return nil }
        return normalized(values.sorted().joined(separator: ","), name: name)
    }

    /// A field value in a form two values with the same meaning share: list members with the whitespace
    /// around them removed, and for the content-negotiation fields (whose tokens ignore case) lower case.
    package static func normalized(_ value: String, name: String) -> String {
        let members = value.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let joined = members.joined(separator: ",")
        return name.hasPrefix("accept") ? joined.lowercased() : joined
    }
}
