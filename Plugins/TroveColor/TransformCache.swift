import Synchronization
import TroveCore

/// Transforms to sRGB by what they convert from (the whole description, so profile bytes are the key) and
/// the sample layout. Building a transform parses the profile and precomputes tables; a photo site sees the
/// same few profiles over and over. Bounded: when full it starts over, so an odd mix costs no more than no
/// cache. Only transforms that were built go in; a description that fails is tried afresh each time.
final class TransformCache: Sendable {
    struct Key: Hashable {
        var description: ColorDescription
        var samples: ColorSamples
    }

    private let capacity: Int
    private let transforms = Mutex<[Key: any ColorTransform]>([:])

    /// A cache of at most `capacity` transforms (at least one).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many transforms are kept now.
    var count: Int { transforms.withLock { $0.count } }

    /// The transform for `key`, built by `make` on first use.
    func transform(for key: Key, make: () throws -> any ColorTransform) rethrows -> any ColorTransform {
        if let cached = transforms.withLock({ $0[key] }) { return cached }
        // Built outside the lock: two threads may build the same transform once each, and both are right.
        let made = try make()
        transforms.withLock { transforms in
            if transforms.count >= capacity { transforms.removeAll(keepingCapacity: true) }
            transforms[key] = made
        }
        return made
    }
}
