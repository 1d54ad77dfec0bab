import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// The reference vectors in Tests/Fixtures/placeholders (made by scripts/fixtures/make_placeholder_vectors.py):
/// RGBA PNG inputs, the ThumbHash and BlurHashes the Python references computed for each, and their decodes.
enum PlaceholderVectors {
    /// A reference decode: the PNG it is saved in and the size (and for BlurHash the punch) it was made at.
    struct Decoded: Decodable, Sendable {
        var file: String
        var width: Int
        var height: Int
        var punch: Int?
    }

    /// The ThumbHash of one input.
    struct ThumbHashVector: Decodable, Sendable {
        /// Standard base64.
        var hash: String
        /// Whether the hash changes when `cos` is one ulp off (flat or mirror-symmetric inputs): exact only
        /// against glibc's `cos`, which the references used.
        var dependsOnCosRounding: Bool
        var averageRgba: [Double]
        var aspectRatio: Double
        var decoded: Decoded
    }

    /// One BlurHash of one input, with its component counts.
    struct BlurHashVector: Decodable, Sendable {
        var x: Int
        var y: Int
        var hash: String
        var decoded: Decoded
    }

    /// One input and everything the references made of it.
    struct Vector: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var input: String
        var width: Int
        var height: Int
        var thumbhash: ThumbHashVector
        var blurhash: [BlurHashVector]

        var testDescription: String { name }
    }

    private struct Manifest: Decodable {
        var vectors: [Vector]
    }

    static let folder = Fixtures.url("placeholders")

    /// Every vector; empty when vectors.json cannot be read, which `load()` then reports.
    static let all: [Vector] = (try? load()) ?? []

    static func load() throws -> [Vector] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let data = try Data(contentsOf: folder.appendingPathComponent("vectors.json"))
        return try decoder.decode(Manifest.self, from: data).vectors
    }

    /// A PNG of the folder as straight-alpha RGBA8 (TroveCodec's decoder: pixels as stored).
    static func image(_ file: String) throws -> Image {
        let data = try Data(contentsOf: folder.appendingPathComponent(file))
        return try PNGDecoder().decode(data, limits: .default).convertedToRGBA8()
    }

    /// The largest difference between two equally long byte arrays (Int.max when their lengths differ).
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return Int.max }
        return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// Whether this platform's `cos` is the one the references used (glibc), so that hashes of flat and
    /// symmetric inputs, whose AC terms are rounding noise, come out the same.
    static var cosMatchesReference: Bool {
        #if canImport(Glibc)
            return true
        #else
            return false
        #endif
    }
}
