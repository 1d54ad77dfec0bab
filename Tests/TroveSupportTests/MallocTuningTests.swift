import CTroveSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `trove serve`'s heap settings (TroveMallocTuning.c) must take on glibc: when they silently did nothing, every
/// warm transform paid about 30 page faults for buffers glibc had just handed back to the kernel.
@Suite struct MallocTuningTests {
    #if canImport(Glibc)
        @Test func bothSettingsTake() {
            // 1 only when this is glibc's branch and mallopt accepted both values.
            #expect(trove_keep_freed_buffers_for_reuse() == 1)
        }

        /// A freed 8 MiB block stays resident for the next request (by default glibc maps a block that large on
        /// its own and unmaps it on free), and `trove_return_free_memory` gives its pages back.
        @Test func aFreedBlockIsKeptUntilFreeMemoryIsReturned() throws {
            #expect(trove_keep_freed_buffers_for_reuse() == 1)
            let size = 8 << 20
            let one = try #require(malloc(size)), other = try #require(malloc(size))
            // The lower of the two has the other, still live, above it: it cannot merge into the heap's top,
            // which free trims past the threshold.
            let (freed, kept) = UInt(bitPattern: one) < UInt(bitPattern: other) ? (one, other) : (other, one)
            defer { free(kept) }
            memset(freed, 1, size)
            let touched = try Self.residentBytes()
            free(freed)
            let afterFree = try Self.residentBytes()
            #expect(trove_return_free_memory() == 1)
            let afterReturn = try Self.residentBytes()
            // Other threads of the test process may move a little meanwhile; the block moves 8 MiB.
            #expect(afterFree > touched - (2 << 20), "freed: \(touched) -> \(afterFree) bytes resident")
            #expect(afterReturn < afterFree - (6 << 20), "returned: \(afterFree) -> \(afterReturn) bytes resident")
        }

        /// The process's resident bytes, from /proc/self/statm's second field (pages).
        private static func residentBytes() throws -> Int {
            let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
            let pages = try #require(fields.count > 1 ? Int(fields[1]) : nil)
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
    #else
        @Test func doesNothingWithoutGlibc() {
            #expect(trove_keep_freed_buffers_for_reuse() == 0)
            #expect(trove_return_free_memory() == 0)
        }
    #endif
}
