import Foundation

/// Bytes without runs, so run-length coding cannot shrink them.
public func incompressibleBytes(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 8)) })
}
