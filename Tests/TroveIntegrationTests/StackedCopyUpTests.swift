import Foundation
import Testing
import Trove
import TroveDiskCache
import TroveTestSupport

/// A stack's copy-up never puts back a value that a write of the same key replaced or removed while the
/// read that found it was still in flight: two in-memory tiers, the lower one's reads held.
@Suite struct StackedCopyUpTests {
    /// The stack `top` over `bottom`, as a pipeline configuration builds it.
    static func stack(_ top: HoldableSharedTier, over bottom: HoldableSharedTier) throws -> any SharedCacheTier {
        var registry = PluginRegistry.standard
        try registry.register(sharedTier: top)
        try registry.register(sharedTier: bottom)
        var configuration = PipelineConfiguration.memoryOnly
        configuration.sharedCaches = [URL(string: "top://tier")!, URL(string: "bottom://tier")!]
        return try #require(try configuration.makeSharedTier(registry: registry))
    }

    static func entry(_ text: String, key: String) throws -> Data {
        try EntryCodec.encode(
            Data(text.utf8), forKey: key, metadata: DiskEntryMetadata(expires: Date().addingTimeInterval(3600)))
    }

    /// Reads `key` through `stack` while `bottom` holds its reads; `write` runs once the read is held, then the
    /// read is let go. Returns what the read answered.
    static func read(
        _ key: String, through stack: any SharedCacheTier, heldBy bottom: HoldableSharedTier,
        while write: () async throws -> Void
    ) async throws -> Data? {
        bottom.holdReads()
        let read = Task { try await stack.get(key) }
        #expect(await eventually { bottom.heldReads == 1 })
        try await write()
        bottom.releaseReads()
        return try await read.value
    }

    @Test func aDeleteDuringTheReadLeavesNothingAbove() async throws {
        let top = HoldableSharedTier(scheme: "top"), bottom = HoldableSharedTier(scheme: "bottom")
        let stack = try Self.stack(top, over: bottom)
        let old = try Self.entry("old", key: "k")
        try await bottom.set("k", value: old, ttl: .seconds(60))
        let answered = try await Self.read("k", through: stack, heldBy: bottom) { try await stack.delete("k") }
        #expect(answered == old)  // the read began before the delete
        await stack.shutdown()  // waits for any copy-up
        #expect(top.stored("k") == nil && bottom.stored("k") == nil)
    }

    @Test func aNewerValueDuringTheReadIsNotReplacedAbove() async throws {
        let top = HoldableSharedTier(scheme: "top"), bottom = HoldableSharedTier(scheme: "bottom")
        let stack = try Self.stack(top, over: bottom)
        try await bottom.set("k", value: try Self.entry("old", key: "k"), ttl: .seconds(60))
        let new = try Self.entry("new", key: "k")
        _ = try await Self.read("k", through: stack, heldBy: bottom) {
            try await stack.set("k", value: new, ttl: .seconds(60))
        }
        await stack.shutdown()
        #expect(top.stored("k") == new && bottom.stored("k") == new)
    }

    @Test func aReadThatBeginsDuringADeleteCopiesNothingUp() async throws {
        let top = HoldableSharedTier(scheme: "top"), bottom = HoldableSharedTier(scheme: "bottom")
        let stack = try Self.stack(top, over: bottom)
        try await bottom.set("k", value: try Self.entry("old", key: "k"), ttl: .seconds(60))
        // The delete has left the top and not yet reached the bottom when the read begins.
        bottom.holdDeletes()
        let delete = Task { try await stack.delete("k") }
        #expect(await eventually { bottom.heldWriteCount == 1 })
        _ = try await stack.get("k")
        bottom.releaseWrites()
        try await delete.value
        await stack.shutdown()
        #expect(top.stored("k") == nil && bottom.stored("k") == nil)
    }

    @Test func aReadNobodyOvertookIsCopiedUp() async throws {
        let top = HoldableSharedTier(scheme: "top"), bottom = HoldableSharedTier(scheme: "bottom")
        let stack = try Self.stack(top, over: bottom)
        let value = try Self.entry("value", key: "k")
        try await bottom.set("k", value: value, ttl: .seconds(60))
        // A write of another key meanwhile does not stop this one's copy-up.
        _ = try await Self.read("k", through: stack, heldBy: bottom) {
            try await stack.set("other", value: try Self.entry("other", key: "other"), ttl: .seconds(60))
        }
        await stack.shutdown()
        #expect(top.stored("k") == value)
    }
}
