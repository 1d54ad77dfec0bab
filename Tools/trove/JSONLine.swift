import Foundation

/// Prints a value as one line of JSON on stdout, keys sorted so output is stable.
func printJSONLine(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value), let line = String(data: data, encoding: .utf8) else { return }
    print(line)
}
