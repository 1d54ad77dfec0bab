import Foundation
import Testing
import TroveCore

@testable import TroveDiskCache

/// Run-length coding (count, byte pairs): shrinks runs, doubles data without them. Test-only stand-in
/// for a real compressor.
struct RunLengthCompressor: Compressor {
    let name = "rle-test"
    let id: UInt8 = 200

    func compress(_ data: Data, level: Int?) throws -> Data {
        var out = Data()
        var index = data.startIndex
        while index < data.endIndex {
            let byte = data[index]
            var run = 1
            while run < 255, data.index(index, offsetBy: run) < data.endIndex,
                data[data.index(index, offsetBy: run)] == byte
            {
                run += 1
            }
            out.append(UInt8(run))
            out.append(byte)
            index = data.index(index, offsetBy: run)
        }
        return out
    }

    func decompress(_ data: Data, originalLength: Int) throws -> Data {
        let bytes = [UInt8](data)
        guard bytes.count % 2 == 0 else {
            throw TroveError.decompressionFailed(compressor: name, reason: "odd length")
        }
        var out = Data()
        for pair in stride(from: 0, to: bytes.count, by: 2) {
            out.append(contentsOf: [UInt8](repeating: bytes[pair + 1], count: Int(bytes[pair])))
            guard out.count <= originalLength else {
                throw TroveError.decompressionFailed(compressor: name, reason: "longer than announced")
            }
        }
        guard out.count == originalLength else {
            throw TroveError.decompressionFailed(compressor: name, reason: "shorter than announced")
        }
        return out
    }
}

/// Maps every key to the same name, to force collisions.
struct CollidingHasher: KeyHasher {
    let name = "colliding"
    func hash(_ key: String) -> String { "abcd0123" }
}

func fileSize(_ url: URL) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
}

func fileExists(_ url: URL) -> Bool {
    FileManager.default.fileExists(atPath: url.path)
}
