import Foundation
import NIOCore

/// `data` as an async sequence of ByteBuffers of `chunkSize` bytes, so a whole `Data` goes through the same
/// upload path as a stream.
struct DataChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let data: Data
    let chunkSize: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        let chunkSize: Int
        var offset: Int

        mutating func next() async -> ByteBuffer? {
            guard offset < data.count else { return nil }
            let end = Swift.min(offset + chunkSize, data.count)
            defer { offset = end }
            let start = data.startIndex
            return ByteBuffer(bytes: data[(start + offset)..<(start + end)])
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(data: data, chunkSize: Swift.max(1, chunkSize), offset: 0)
    }
}
