#ifndef TROVE_CRASH_JOURNAL_H
#define TROVE_CRASH_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

/// The crash journal: a small file mapped shared into memory, so what it holds reaches the file even when
/// the process dies without a chance to write (a trap, a segfault, SIGKILL). Each thread that works on a
/// source (decode, transform, encode) holds one slot with that source's name; a fatal signal on such a
/// thread records the slot before the process dies. Entering and leaving a slot are memory writes only.

/// Slots in the journal: threads working on a source at once.
#define TROVE_JOURNAL_SLOTS 64
/// Bytes a slot keeps of a source's name (longer names are cut; the caller passes a digest first).
#define TROVE_JOURNAL_NAME_BYTES 1016

/// Maps the journal at `path`, made empty (what it held must be read first), and installs the fatal-signal
/// handlers that record the crashing thread's slot (once per process; each then passes the signal on to the
/// handler that was there before). Returns 0, or -errno when the file cannot be made or mapped.
int trove_journal_open(const char *path);

/// Claims a free slot for the calling thread, holding `name` (`length` bytes); returns the slot, or -1
/// when the journal is not open or every slot is taken (the work then goes on unjournaled).
int trove_journal_enter(const char *name, size_t length);

/// Frees `slot` (from `trove_journal_enter`; -1 does nothing).
void trove_journal_leave(int slot);

/// The file's size: a header of 64 bytes, then the slots, each a 4-byte state (0 free, 1 held), a 4-byte
/// length and the name. The header is the magic "TRVJ", a 4-byte version (1), then the slot of the thread
/// that died of a fatal signal (-1 when none) and that signal, each 4 bytes, little-endian.
size_t trove_journal_file_size(void);

#endif
