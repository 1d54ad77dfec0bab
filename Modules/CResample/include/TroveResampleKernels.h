#ifndef TROVE_RESAMPLE_KERNELS_H
#define TROVE_RESAMPLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU runs the AVX2 kernels below (x86-64 with AVX2), else 0. Calling a kernel where this is 0
/// is an illegal instruction.
int trove_resample_has_avx2(void);

/// The vertical pass of a resample, eight floats to an instruction: for each x below `count`, the sum over
/// `paired` (even) rows of rows[k][x] * weights[k], each pair of rows multiplied and added and then added to
/// the sum, in that order (the portable Swift pass's arithmetic, so the bytes match); clamped to 0...255,
/// rounded half up and stored at out[x]. Reads rows[k][0 ..< count] only.
void trove_resample_rows_avx2(
    const float *const *rows, const float *weights, int paired, size_t count, uint8_t *out);

/// Eight rows of bytes (row r at staged + r * stride; stride a multiple of 8 at least `columns`) into
/// `batch` as floats, column by column: batch[x * 8 + r] = staged[r * stride + x] for x below `columns`.
void trove_transpose_rows_avx2(const uint8_t *staged, size_t stride, size_t columns, float *batch);

/// The horizontal pass of a plane resample over a batch of eight rows: `batch` holds, for each source column
/// from the first one read, the eight rows' samples as floats (row r in lane r). For each output j below
/// `outputs`, its `taps` (even) columns from batch[starts[j] - first_column] are multiplied by its weights
/// (`weight_splats[(j * taps + k) * 4]`, each repeated four times) into two sums, the even taps' and the odd
/// taps', from zero, which are then added; lane r of that goes to slots[r][j].
void trove_filter_across_avx2(
    const float *batch, const ptrdiff_t *starts, ptrdiff_t first_column, const float *weight_splats, int taps,
    size_t outputs, float *const *slots);

/// A 2x2 box halving of two rows, with libjpeg-turbo's alternating bias: for each x below `pairs`,
/// out[x] = (top[2x] + top[2x+1] + bottom[2x] + bottom[2x+1] + 1 + (x & 1)) >> 2.
void trove_halve_rows_avx2(const uint8_t *top, const uint8_t *bottom, size_t pairs, uint8_t *out);

#endif
