import Foundation
import Synchronization
import TroveCore

/// A `CookieStore` in memory, shared safely by every fetch that uses it, following RFC 6265 as a client:
/// host-only and domain cookies, path matching, expiry (Max-Age and Expires; `Max-Age=0` deletes), and
/// Secure cookies only over https. Cookies live as long as the jar; nothing is written to disk.
///
/// ```swift
/// var configuration = PipelineConfiguration()
/// configuration.cookieStore = CookieJar()
/// ```
public final class CookieJar: CookieStore {
    /// Most cookies kept; past it the oldest go first (RFC 6265 §6.1 asks a client for at least 3000).
    public static let defaultCapacity = 3000

    /// A stored cookie and when it first came, which orders cookies of equal path length (§5.4).
    private struct Entry {
        var cookie: StoredCookie
        var order: UInt64
    }

    private struct State {
        var entries: [Entry] = []
        var nextOrder: UInt64 = 0
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let now: @Sendable () -> Date

    /// An empty jar holding up to `capacity` cookies.
    public convenience init(capacity: Int = CookieJar.defaultCapacity) {
        self.init(capacity: capacity, clock: { Date() })
    }

    /// An empty jar whose clock is `clock`, so tests can move time past an expiry.
    init(capacity: Int = CookieJar.defaultCapacity, clock: @escaping @Sendable () -> Date) {
        self.capacity = max(1, capacity)
        self.now = clock
    }

    /// The cookies that go with a request to `url` now, in the order they are sent: longer paths first,
    /// then the earlier stored.
    package func cookies(for url: URL) -> [StoredCookie] {
        let now = now()
        return state.withLock { state in
            state.entries.removeAll { $0.cookie.isExpired(at: now) }
            return state.entries.filter { $0.cookie.applies(to: url, at: now) }
                .sorted { ($0.cookie.path.count, $1.order) > ($1.cookie.path.count, $0.order) }
                .map(\.cookie)
        }
    }

    /// Every cookie the jar holds that has not expired, in the order they were first stored.
    package var allCookies: [StoredCookie] {
        let now = now()
        return state.withLock { state in
            state.entries.removeAll { $0.cookie.isExpired(at: now) }
            return state.entries.map(\.cookie)
        }
    }

    /// `name=value` pairs joined by "; ", as RFC 6265 §5.4 sends them; nil when no cookie applies.
    public func cookieHeader(for url: URL) -> String? {
        let cookies = cookies(for: url)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Parses each header (`StoredCookie.init?(setCookieHeader:receivedFrom:at:)`) and stores what it sets;
    /// headers a client must ignore are ignored.
    public func storeCookies(fromSetCookieHeaders headers: [String], receivedFrom url: URL) {
        let now = now()
        let cookies = headers.compactMap { StoredCookie(setCookieHeader: $0, receivedFrom: url, at: now) }
        guard !cookies.isEmpty else { return }
        state.withLock { state in
            for cookie in cookies { Self.store(cookie, in: &state, now: now, capacity: capacity) }
        }
    }

    /// Stores one cookie, replacing the one in its slot (whose first-stored order it keeps, §5.3 step 11);
    /// an expired cookie only removes that one.
    package func store(_ cookie: StoredCookie) {
        let now = now()
        state.withLock { Self.store(cookie, in: &$0, now: now, capacity: capacity) }
    }

    /// Forgets every cookie.
    public func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    private static func store(_ cookie: StoredCookie, in state: inout State, now: Date, capacity: Int) {
        let order: UInt64
        if let replaced = state.entries.firstIndex(where: { $0.cookie.isSameSlot(as: cookie) }) {
            order = state.entries.remove(at: replaced).order
        } else {
            order = state.nextOrder
            state.nextOrder += 1
        }
        guard !cookie.isExpired(at: now) else { return }
        // Entries stay sorted oldest first, so the capacity check below drops the oldest.
        let position = state.entries.firstIndex { $0.order > order } ?? state.entries.endIndex
        state.entries.insert(Entry(cookie: cookie, order: order), at: position)
        if state.entries.count > capacity {
            state.entries.removeAll { $0.cookie.isExpired(at: now) }
            if state.entries.count > capacity { state.entries.removeFirst(state.entries.count - capacity) }
        }
    }
}
