import Foundation

/// Self-describing entry contents: a first line naming key, writer, version and length, then filler
/// derived from that line. Whoever reads an entry can rebuild the exact bytes that version had, so
/// "every read returns one of the versions written, never a mix" is checkable without shared state.
/// Shared by the writer process (Tools/DiskCacheTorture) and the tests that check what it wrote.
public enum TorturePayload {
    public static func make(key: String, writer: Int, version: Int, length: Int) -> Data {
        let line = Array("trove-torture key=\(key) writer=\(writer) version=\(version) length=\(length)\n".utf8)
        var bytes = [UInt8](repeating: 0, count: max(length, line.count))
        var state = line.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
        bytes.withUnsafeMutableBufferPointer { out in
            for index in line.count..<out.count {
                state = state &* 1_664_525 &+ 1_013_904_223
                out[index] = UInt8(truncatingIfNeeded: state >> 24)
            }
            for (index, byte) in line.enumerated() { out[index] = byte }
        }
        return Data(bytes)
    }

    /// True if `data` is exactly some version of `key` as `make` builds it.
    public static func isWholeVersion(_ data: Data, of key: String) -> Bool {
        guard let newline = data.firstIndex(of: UInt8(ascii: "\n")),
            let line = String(data: data[data.startIndex..<newline], encoding: .utf8)
        else { return false }
        var fields: [String: String] = [:]
        for part in line.split(separator: " ").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard line.hasPrefix("trove-torture "), fields["key"] == key,
            let writer = fields["writer"].flatMap(Int.init), let version = fields["version"].flatMap(Int.init),
            let length = fields["length"].flatMap(Int.init), length == data.count
        else { return false }
        return make(key: key, writer: writer, version: version, length: length) == data
    }
}
