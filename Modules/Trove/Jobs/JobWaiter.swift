import Foundation
import Synchronization
import Tracing
import TroveCore

/// One caller of shared work, as the job it joins knows it: who it is, how urgent it is, where its progress
/// and previews go, and the URL `cancel(url:)` finds it by. A request is a waiter of its own job; a job that
/// waits on deeper work (a transform on its fetch) is a waiter of that work (`JobHandle.asWaiter`), so what
/// the deeper job reports flows up, and a priority change flows down.
package struct JobWaiter: Sendable {
    /// Unique in the process: a job admits a waiter once.
    let id: UInt64
    var priority: RequestPriority
    let progress: @Sendable (FetchProgress) -> Void
    /// Set when the caller wants previews of the body while it arrives (image requests only).
    var previews: PreviewRequest?
    /// The URL a request is for; nil for a job waiting on another.
    let url: URL?
    /// Set when the waiter is itself a job: its live priority and previews are followed.
    let job: JobHandle?
    /// The span the caller waits in, when tracing: a job it starts runs under it (`JobHandle.span`), and a
    /// job it joins is linked from it.
    var span: (any Span)?

    /// A new waiter with an identity of its own.
    package init(
        priority: RequestPriority = .normal, url: URL? = nil,
        progress: @escaping @Sendable (FetchProgress) -> Void = { _ in }
    ) {
        self.init(id: Self.nextID(), priority: priority, url: url, progress: progress, job: nil)
    }

    init(
        id: UInt64, priority: RequestPriority, url: URL?, progress: @escaping @Sendable (FetchProgress) -> Void,
        job: JobHandle?, span: (any Span)? = nil
    ) {
        self.id = id
        self.priority = priority
        self.url = url
        self.progress = progress
        self.job = job
        self.span = span
    }

    /// What it wants of previews now: a job's wish is its own waiters'.
    var previewWish: PreviewRequest? { job?.previewWish ?? previews }

    /// Sends a preview to it (a job passes it on to its own waiters that asked).
    func deliver(_ image: Image) {
        if let job { job.deliverPreview(image) } else { previews?.deliver(image) }
    }

    private static let counter = Atomic<UInt64>(0)

    /// A fresh identity for a waiter or a job.
    static func nextID() -> UInt64 {
        counter.add(1, ordering: .relaxed).newValue
    }
}
