import Foundation

/// Prints a value as one line of JSON on stdout, keys sorted so output is stable.
func printJSONLine(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value), let line = String(data: data, encoding: .utf8) else { return }
    print(line)
}

/// `printJSONLine`, written at once (stdout is buffered when it is a pipe): for lines a reader follows as
/// they come, such as `prefetch --progress json`. Nothing may be printed before it with `print`.
func writeJSONLineNow(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard var data = try? encoder.encode(value) else { return }
    data.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(data)
}
