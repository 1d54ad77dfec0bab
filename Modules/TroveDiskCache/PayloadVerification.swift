/// When a `DiskCache` recomputes the CRC-32 of a payload it reads. The header, its own checksum, the full
/// key and the file's length are checked on every read either way.
public enum PayloadVerification: String, Sendable, CaseIterable {
    /// Every read checksums the whole payload: damaged bytes are never served, whatever
    /// damaged them.
    case everyRead
    /// The first read of a file in this process checksums it; later reads skip the checksum while the
    /// file's device, inode, size, modification and change times are all as they were when it was
    /// checked. Any write, truncation or replacement of the file through the file system changes one of
    /// them, so damage done that way is still caught on the next read. A file changed less than three
    /// seconds before the read that checked it is checked again on every read, because file-system
    /// timestamps can be too coarse (two seconds on FAT) to show a second write that close to the first.
    /// What this does not catch: a disk returning other bytes for an unchanged file after the kernel
    /// dropped it from memory; a write through a shared memory mapping to a page already dirty (which
    /// leaves the times alone); and, on a network file system, a server whose clock runs far behind
    /// this machine's. The default: repeated disk hits of the same entries matter more than those.
    case whenFileChanges
}
