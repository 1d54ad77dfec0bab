import TroveCore

extension CacheSimulator {
    /// Replays a trace file's bytes: one request a line, `KEY` or `KEY SIZE` (separated by spaces,
    /// tabs or a comma; SIZE in the capacity's unit). Blank lines are skipped. When no line gives a
    /// size every request has size 1, so the capacity counts keys.
    /// Throws `invalidConfiguration` naming the first bad line.
    package mutating func replay(trace bytes: some Collection<UInt8>) throws {
        var line = 0
        var fields: [Substring.UTF8View] = []
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            line += 1
            fields.removeAll(keepingCapacity: true)
            let text = Substring(decoding: rawLine, as: UTF8.self)
            for field in text.utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x2C || $0 == 0x0D }) {
                fields.append(field)
            }
            switch fields.count {
            case 0:
                continue
            case 1:
                request(String(Substring(fields[0])))
            case 2:
                guard let size = Int(Substring(fields[1])), size >= 0 else {
                    throw TroveError.invalidConfiguration(
                        "trace line \(line): size '\(Substring(fields[1]).prefix(40))' is not a whole number of bytes; expected 'KEY [SIZE]'"
                    )
                }
                request(String(Substring(fields[0])), size: size)
            default:
                throw TroveError.invalidConfiguration(
                    "trace line \(line) has \(fields.count) fields; expected 'KEY [SIZE]'")
            }
        }
    }
}
