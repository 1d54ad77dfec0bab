#ifndef TROVE_CHECKSUM_H
#define TROVE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// zlib's CRC-32 (the gzip/PNG polynomial), continuing from `crc` (0 to start), over `length` bytes.
/// Returns exactly what zlib's crc32() returns, computed with carry-less multiplication where the CPU
/// has it (x86-64 PCLMULQDQ, or VPCLMULQDQ for 32 bytes per instruction), and by zlib otherwise.
uint32_t trove_crc32(uint32_t crc, const void *bytes, size_t length);

/// Which implementation trove_crc32 uses on this CPU: "vpclmulqdq", "pclmulqdq" or "zlib".
const char *trove_crc32_implementation(void);

/// The same checksum by the 16-byte-lane path even where a wider one exists, so tests cover both.
uint32_t trove_crc32_narrow(uint32_t crc, const void *bytes, size_t length);

/// The same checksum by zlib alone, for tests and benchmarks to compare against.
uint32_t trove_crc32_zlib(uint32_t crc, const void *bytes, size_t length);

#endif
