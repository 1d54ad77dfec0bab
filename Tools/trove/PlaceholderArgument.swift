import ArgumentParser
import Foundation
import Trove

/// `--placeholder thumbhash|blurhash[:XxY]`: which placeholder `get` prints and `prefetch` computes.
struct PlaceholderArgument: ExpressibleByArgument {
    let kind: PlaceholderKind

    init?(argument: String) {
        guard let kind = PlaceholderKind(parsing: argument) else { return nil }
        self.kind = kind
    }

    static var defaultCompletionKind: CompletionKind { .list(["thumbhash", "blurhash"]) }
}

/// A placeholder in a JSON line: `{"kind": "thumbhash", "value": "..."}` (`kind` is `blurhash:4x3` and such
/// for a BlurHash, with its components).
struct PlaceholderField: Encodable {
    let kind: String
    let value: String

    init(_ kind: PlaceholderKind, _ value: String) {
        self.kind = kind.description
        self.value = value
    }
}

/// What `trove prefetch --placeholder` warms: the URL as the inner target does, then its placeholder, so it is
/// kept with the cached original and a later `get --placeholder` reads neither the image nor decodes it.
struct PlaceholderTarget: PrefetchTarget {
    let inner: any PrefetchTarget
    let pipeline: ImagePipeline
    let kind: PlaceholderKind

    func prefetch(_ url: URL, priority: RequestPriority, destination: PrefetchDestination, retryFailed: Bool)
        async throws -> PrefetchedItem
    {
        var item = try await inner.prefetch(url, priority: priority, destination: destination, retryFailed: retryFailed)
        let request = ImageRequest(url: url, priority: priority, options: retryFailed ? .retryFailed : [])
        item.placeholder = try await pipeline.placeholder(for: request, kind: kind)
        return item
    }

    func flush() async { await inner.flush() }
}
