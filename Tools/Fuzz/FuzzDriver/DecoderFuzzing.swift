import Foundation
import TroveCore

// What every decoder's libFuzzer target checks: decoding arbitrary bytes must return an image or throw a
// TroveError, never crash, hang or leak, and so must a progressive decoder's incremental decode and a planar
// decoder's planar stream fed the same bytes in growing prefixes, as a download delivers them. Limits are small so a huge declared size is
// refused rather than allocated.

private func fuzzOneInput(_ decoder: any ImageDecoder, _ data: Data) {
    let count = data.count
    let limits = DecodingLimits(maxPixels: 1 << 22, maxDecodedBytes: 1 << 26)
    expectImageOrTroveError {
        try decoder.decode(data, limits: limits)
    }
    if let progressive = decoder as? any ProgressiveImageDecoder {
        let incremental = progressive.makeIncrementalDecoder(limits: limits)
        // Eight growing prefixes, then the whole: the chunk walk and libjpeg's suspension resume at odd places.
        for end in Set((1...8).map { count * $0 / 8 }).sorted() {
            expectImageOrTroveError { try incremental.preview(data.prefix(end)) }
        }
    }
    if let planar = decoder as? any PlanarImageDecoder {
        // A planar decode fed the body in eight pieces (the first may be empty), the last told complete, as a
        // fetch feeds it.
        let sink = CheckingPlaneSink()
        let stream = planar.makePlanarStream(
            options: DecodingOptions(limits: limits), accepts: { _ in true }, into: sink)
        var fed = 0
        for end in Set((0...8).map { count * $0 / 8 }).sorted() {
            let piece = data[data.startIndex + fed..<data.startIndex + end]
            fed = end
            expectPlanesOrTroveError { try stream.advance(piece, isComplete: end == count) }
        }
    }
}

/// Reads every sample of every row it is given, so a short row shows as an overread.
private final class CheckingPlaneSink: PlaneRowSink {
    var widths: [Int] = []
    var checksum = 0

    func begin(_ header: PlanarStreamHeader) throws {
        precondition(widths.isEmpty, "begin called twice")
        precondition(header.planes.count == 3 && header.planes.allSatisfy { $0.width > 0 && $0.height > 0 })
        widths = header.planes.map(\.width)
    }

    func consume(plane: Int, row: UnsafePointer<UInt8>) throws {
        precondition(widths.indices.contains(plane), "a row before begin, or of no plane")
        for x in 0..<widths[plane] { checksum &+= Int(row[x]) }
    }
}

/// Runs one step of a planar decode: any progress, or a TroveError.
private func expectPlanesOrTroveError(_ step: () throws -> PlanarStreamProgress) {
    do {
        _ = try step()
    } catch is TroveError {
    } catch {
        preconditionFailure("a planar decode threw something other than TroveError: \(error)")
    }
}

/// Runs one decode: an image (or nil, for a preview not yet ready) must have all its pixels; a failure
/// must be a TroveError.
private func expectImageOrTroveError(_ decode: () throws -> Image?) {
    do {
        if let image = try decode() {
            precondition(image.pixels.count >= image.width * image.height * 4, "short pixel buffer")
        }
    } catch is TroveError {
        // Refusing bad input is the expected outcome.
    } catch {
        preconditionFailure("a decoder threw something other than TroveError: \(error)")
    }
}

/// Runs libFuzzer over `decoder` with the process's arguments and exits with the driver's status.
public func fuzz(_ decoder: any ImageDecoder) -> Never {
    fuzz { data in fuzzOneInput(decoder, data) }
}
