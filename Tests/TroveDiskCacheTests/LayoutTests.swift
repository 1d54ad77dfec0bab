import Foundation
import Testing
import TroveCore
import TroveDiskCache
import TroveTestSupport

@Suite("Key hashers and file layout")
struct LayoutTests {
    @Test func hashersMatchKnownVectors() {
        #expect(SHA256Hasher().hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(MD5Hasher().hash("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(SHA256Hasher().name == "sha256")
        #expect(MD5Hasher().name == "md5")
    }

    @Test(arguments: [
        (KeyHasherChoice.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (KeyHasherChoice.md5, "900150983cd24fb0d6963f7d28e17f72")
    ])
    func entryFileLivesUnderTwoShardDirectories(hasher: KeyHasherChoice, hex: String) async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, hasher: hasher.hasher)
        try await cache.store(Data("abc bytes".utf8), forKey: "abc")
        await cache.flush()

        let prefix = hex.prefix(2), next = hex.dropFirst(2).prefix(2)
        let expected = dir.url.appendingPathComponent("entries/\(prefix)/\(next)/\(hex)")
        #expect(fileExists(expected))
        #expect(cache.fileURL(forKey: "abc").path == expected.path)
        #expect(filesUnder(dir.url.appendingPathComponent("entries")).map(\.lastPathComponent) == [hex])
    }

    @Test func aHasherOutputThatIsNotAFileNameStaysInsideTheCache() async throws {
        struct UnsafeHasher: KeyHasher {
            let name = "unsafe"
            func hash(_ key: String) -> String { "../../" + key }
        }
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, hasher: UnsafeHasher())
        try await cache.store(Data("x".utf8), forKey: "escape")
        await cache.flush()
        let url = cache.fileURL(forKey: "escape")
        #expect(url.lastPathComponent == "______escape")
        #expect(url.path.hasPrefix(dir.url.standardizedFileURL.path + "/entries/__/__/"))
        #expect(fileExists(url))
        #expect(try await cache.data(forKey: "escape") == Data("x".utf8))
    }

    /// A name shorter than the four characters the shards take is padded with "0" for the directories.
    @Test(arguments: [("a", "a0/00"), ("abc", "ab/c0"), ("abcd", "ab/cd")])
    func aShortNameIsPaddedInItsShardDirectories(name: String, shards: String) async throws {
        struct FixedHasher: KeyHasher {
            let name = "fixed"
            let output: String
            func hash(_ key: String) -> String { output }
        }
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, hasher: FixedHasher(output: name))
        try await cache.store(Data("short".utf8), forKey: "k")
        await cache.flush()
        let expected = dir.url.appendingPathComponent("entries/\(shards)/\(name)")
        #expect(cache.fileURL(forKey: "k").path == expected.path)
        #expect(fileExists(expected))
        #expect(try await cache.data(forKey: "k") == Data("short".utf8))
    }
}

enum KeyHasherChoice: Sendable, CustomStringConvertible {
    case sha256, md5

    var hasher: any KeyHasher {
        switch self {
        case .sha256: SHA256Hasher()
        case .md5: MD5Hasher()
        }
    }

    var description: String { hasher.name }
}
