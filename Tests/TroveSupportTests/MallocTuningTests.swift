import CTroveSupport
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
        /// its own and unmaps it on free), and `trove_return_free_memory` gives its pages back. The block's own
        /// pages are asked about (`mincore`), not the process's resident memory, which other threads and glibc's
        /// trimming of other blocks move meanwhile.
        @Test func aFreedBlockIsKeptUntilFreeMemoryIsReturned() throws {
            #expect(trove_keep_freed_buffers_for_reuse() == 1)
            let size = 8 << 20
            let one = try #require(malloc(size)), other = try #require(malloc(size))
            // The lower of the two has the other, still live, above it: it cannot merge into the heap's top,
            // which free trims past the threshold.
            let (freed, kept) = UInt(bitPattern: one) < UInt(bitPattern: other) ? (one, other) : (other, one)
            defer { free(kept) }
            memset(freed, 1, size)
            let touched = Self.residentPages(inside: freed, size: size)
            free(freed)
            let afterFree = Self.residentPages(inside: freed, size: size)
            #expect(trove_return_free_memory() == 1)
            let afterReturn = Self.residentPages(inside: freed, size: size)
            #expect(touched > 2000, "touched: \(touched) pages resident")
            #expect(afterFree == touched, "freed: \(touched) -> \(afterFree) pages resident")
            #expect(afterReturn == 0, "returned: \(afterFree) -> \(afterReturn) pages resident")
        }

        /// How many of the whole pages inside a block, past its first (where glibc keeps a free block's links),
        /// are resident; an unmapped range counts none.
        private static func residentPages(inside block: UnsafeMutableRawPointer, size: Int) -> Int {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: block) + page - 1) / page * page + page
            let end = (Int(bitPattern: block) + size) / page * page
            guard end > start, let base = UnsafeMutableRawPointer(bitPattern: start) else { return 0 }
            var states = [UInt8](repeating: 0, count: (end - start) / page)
            guard mincore(base, end - start, &states) == 0 else { return 0 }
            return states.filter { $0 & 1 == 1 }.count
        }

    #else
        @Test func doesNothingWithoutGlibc() {
            #expect(trove_keep_freed_buffers_for_reuse() == 0)
            #expect(trove_return_free_memory() == 0)
        }
    #endif
}
