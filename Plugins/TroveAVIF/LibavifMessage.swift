import CAVIF

/// Turns libavif's result codes and diagnostics into the reason an error carries.
enum LibavifMessage {
    /// "<step>: <libavif's result string> (<its diagnostic>)", the diagnostic only when libavif left one.
    static func describe(_ result: avifResult, _ diagnostics: avifDiagnostics, _ step: String) -> String {
        let name = String(cString: avifResultToString(result))
        let detail = withUnsafeBytes(of: diagnostics.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return detail.isEmpty ? "\(step): \(name)" : "\(step): \(name) (\(detail))"
    }
}
