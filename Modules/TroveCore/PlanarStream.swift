import Foundation

/// How far a planar decode fed as its body arrives has got.
package enum PlanarStreamProgress: Sendable, Equatable {
    /// It has decoded what the bytes so far allow and needs more of them.
    case needsMore
    /// `accepts` declined the header's facts: nothing was decoded, and nothing will be.
    case declined
    /// Every row has reached the sink.
    case finished
}

/// One planar decode of one body, fed the body as it arrives, so the decode keeps pace with the download
/// instead of starting after it. It keeps only the bytes it has not decoded yet, not the body so far. Not
/// `Sendable`: one caller feeds it, in order.
package protocol PlanarStream: AnyObject {
    /// Decodes as far as the bytes given so far go: `piece` is the body's next bytes, after every byte an earlier
    /// call was given. Without `isComplete` it returns `.needsMore` where the bytes run out; with it the body
    /// has ended with `piece`, and it finishes or throws as a decode of the whole file would (a truncated file
    /// throws). Throws for a damaged file, a size over the limits or what the sink threw; after a throw every
    /// call throws the same error, and once it has finished or declined every call says so.
    func advance(_ piece: Data, isComplete: Bool) throws -> PlanarStreamProgress
}
