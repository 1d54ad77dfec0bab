import Foundation
import TroveCore

// A Range request answered from a stored whole response (RFC 9110 §14, RFC 9111 §3.4 allows a cache to
// do so): the bytes asked for, as 206 with Content-Range. Partial answers from the origin are never
// stored, so a stored response is always whole.

extension DataResponse {
    /// What this response answers to `request`: 304 when the request's own conditions hold
    /// (`notModified(answering:)`, evaluated first as RFC 9110 §13.2.2 orders them), else a cached whole 200
    /// cut to the single byte range the request's `Range` names, as 206 Partial Content; itself otherwise (no
    /// Range, several ranges, one that cannot be satisfied, or an answer from the origin, which already heard
    /// the Range).
    func answering(_ request: DataRequest) -> DataResponse {
        if let notModified = notModified(answering: request) { return notModified }
        guard source != .network, status == 200, request.method == "GET",
            let header = request.headers.value(named: "range"),
            let range = Self.byteRange(header, length: data.count)
        else { return self }
        var part = self
        part.data = data.subdata(in: data.startIndex + range.lowerBound..<data.startIndex + range.upperBound + 1)
        part.status = 206
        let replaced: Set<String> = ["content-length", "content-range"]
        part.headerFields =
            headerFields.filter { !replaced.contains($0.name.lowercased()) } + [
                HeaderField(
                    name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(data.count)"),
                HeaderField(name: "Content-Length", value: String(part.data.count))
            ]
        return part
    }

    /// The one byte range `bytes=first-last`, `bytes=first-` or `bytes=-suffix` names within `length`
    /// bytes, clamped to them; nil for another unit, several ranges, or a range past the end.
    static func byteRange(_ header: String, length: Int) -> ClosedRange<Int>? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), length > 0 else { return nil }
        let spec = value.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit) else { return nil }
        if first.isEmpty {
            guard let suffix = Int(last), suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
        guard let start = Int(first), start < length else { return nil }
        guard !last.isEmpty else { return start...(length - 1) }
        guard let end = Int(last), end >= start else { return nil }
        return start...min(end, length - 1)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
