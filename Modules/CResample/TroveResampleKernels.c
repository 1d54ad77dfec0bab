// The resampler's hottest loops (its vertical pass, a plane's horizontal pass and the turning of its rows into
// lanes, and the 2x2 chroma halving) for x86-64 CPUs with AVX2: Swift's SIMD types compile to the baseline's
// SSE2 (four floats to an instruction), these to eight. Each output is computed with exactly the operations of
// the portable Swift loops, in the same order and with no fused multiply-add (the target is AVX2 without FMA),
// so a machine's kernel never changes a byte.

#include "TroveResampleKernels.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

#include <immintrin.h>

#pragma STDC FP_CONTRACT OFF

int trove_resample_has_avx2(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }

// AVX2 without FMA; the pragma keeps clang from fusing (a build with -ffp-contract=fast would override it,
// and ResampleKernelsTests.weightedRowsKeepTheSwiftPassLastBits would then fail).
#define AVX2_TARGET __attribute__((target("avx2")))

/// floor(clamp(v, 0, 255) + 0.5), the portable pass's rounding. (A NaN, which byte samples and finite weights
/// cannot make, ends as 0 here and as its bits' low byte there.)
AVX2_TARGET static inline __m256 rounded(__m256 v) {
    const __m256 zero = _mm256_setzero_ps(), top = _mm256_set1_ps(255.0f);
    v = _mm256_blendv_ps(v, zero, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
    v = _mm256_blendv_ps(v, top, _mm256_cmp_ps(v, top, _CMP_GT_OQ));
    return _mm256_floor_ps(_mm256_add_ps(v, _mm256_set1_ps(0.5f)));
}

/// The same for one float.
static inline uint8_t rounded_byte(float v) {
    if (v < 0) v = 0;
    if (v > 255) v = 255;
    float floored = __builtin_floorf(v + 0.5f);
    return floored == floored ? (uint8_t)floored : 0;
}

/// Rows k and k + 1 weighted and added, eight floats from x.
AVX2_TARGET static inline __m256 pair_sum(const float *const *rows, const float *weights, int k, size_t x) {
    __m256 first = _mm256_mul_ps(_mm256_loadu_ps(rows[k] + x), _mm256_set1_ps(weights[k]));
    __m256 second = _mm256_mul_ps(_mm256_loadu_ps(rows[k + 1] + x), _mm256_set1_ps(weights[k + 1]));
    return _mm256_add_ps(first, second);
}

AVX2_TARGET void trove_resample_rows_avx2(
    const float *const *rows, const float *weights, int paired, size_t count, uint8_t *out) {
    size_t x = 0;
    for (; x + 16 <= count; x += 16) {
        __m256 low = pair_sum(rows, weights, 0, x), high = pair_sum(rows, weights, 0, x + 8);
        for (int k = 2; k < paired; k += 2) {
            low = _mm256_add_ps(low, pair_sum(rows, weights, k, x));
            high = _mm256_add_ps(high, pair_sum(rows, weights, k, x + 8));
        }
        // Exact integers 0...255: the conversion cannot saturate, the packs keep their order within each
        // 128-bit half, and the permutation puts the halves' four-byte groups back in order.
        __m256i words = _mm256_packs_epi32(_mm256_cvttps_epi32(rounded(low)), _mm256_cvttps_epi32(rounded(high)));
        __m256i bytes = _mm256_packus_epi16(words, words);
        bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm_storeu_si128((__m128i *)(out + x), _mm256_castsi256_si128(bytes));
    }
    for (; x < count; x++) {
        float sum = rows[0][x] * weights[0] + rows[1][x] * weights[1];
        for (int k = 2; k < paired; k += 2) sum += rows[k][x] * weights[k] + rows[k + 1][x] * weights[k + 1];
        out[x] = rounded_byte(sum);
    }
}

/// Column `x`'s eight rows (the low eight bytes of `column`) as floats, at batch[x * 8].
AVX2_TARGET static inline void store_column(__m128i column, float *batch, size_t x) {
    _mm256_storeu_ps(batch + x * 8, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(column)));
}

AVX2_TARGET void trove_transpose_rows_avx2(const uint8_t *staged, size_t stride, size_t columns, float *batch) {
    for (size_t x = 0; x < columns; x += 8) {
        __m128i rows[8];
        for (int r = 0; r < 8; r++) rows[r] = _mm_loadl_epi64((const __m128i *)(staged + r * stride + x));
        // An 8x8 byte transposition by interleaving: pairs of rows, then fours, then all eight.
        __m128i pairs01 = _mm_unpacklo_epi8(rows[0], rows[1]), pairs23 = _mm_unpacklo_epi8(rows[2], rows[3]);
        __m128i pairs45 = _mm_unpacklo_epi8(rows[4], rows[5]), pairs67 = _mm_unpacklo_epi8(rows[6], rows[7]);
        __m128i low0123 = _mm_unpacklo_epi16(pairs01, pairs23), high0123 = _mm_unpackhi_epi16(pairs01, pairs23);
        __m128i low4567 = _mm_unpacklo_epi16(pairs45, pairs67), high4567 = _mm_unpackhi_epi16(pairs45, pairs67);
        // Each holds two columns' eight rows: x and x + 1, x + 2 and x + 3, and so on.
        __m128i columns01 = _mm_unpacklo_epi32(low0123, low4567), columns23 = _mm_unpackhi_epi32(low0123, low4567);
        __m128i columns45 = _mm_unpacklo_epi32(high0123, high4567);
        __m128i columns67 = _mm_unpackhi_epi32(high0123, high4567);
        __m128i pairs[4] = {columns01, columns23, columns45, columns67};
        for (size_t c = 0; c < 4; c++) {
            if (x + 2 * c < columns) store_column(pairs[c], batch, x + 2 * c);
            if (x + 2 * c + 1 < columns) store_column(_mm_srli_si128(pairs[c], 8), batch, x + 2 * c + 1);
        }
    }
}

AVX2_TARGET void trove_filter_across_avx2(
    const float *batch, const ptrdiff_t *starts, ptrdiff_t first_column, const float *weight_splats, int taps,
    size_t outputs, float *const *slots) {
    for (size_t j = 0; j < outputs; j++) {
        const float *line = batch + (starts[j] - first_column) * 8;
        const float *weights = weight_splats + j * (size_t)taps * 4;
        __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
        for (int k = 0; k < taps; k += 2) {
            even = _mm256_add_ps(even, _mm256_mul_ps(_mm256_loadu_ps(line + k * 8), _mm256_set1_ps(weights[k * 4])));
            odd = _mm256_add_ps(
                odd, _mm256_mul_ps(_mm256_loadu_ps(line + (k + 1) * 8), _mm256_set1_ps(weights[(k + 1) * 4])));
        }
        float sum[8];
        _mm256_storeu_ps(sum, _mm256_add_ps(even, odd));
        for (int lane = 0; lane < 8; lane++) slots[lane][j] = sum[lane];
    }
}

AVX2_TARGET void trove_halve_rows_avx2(const uint8_t *top, const uint8_t *bottom, size_t pairs, uint8_t *out) {
    const __m256i ones = _mm256_set1_epi8(1);
    // Output x gets 1 + (x & 1); every block starts at an even x.
    const __m256i bias = _mm256_set1_epi32(0x00020001);
    size_t x = 0;
    for (; x + 16 <= pairs; x += 16) {
        // pmaddubsw adds each pair of adjacent bytes (times 1) into a 16-bit lane: at most 510, no saturation.
        __m256i upper = _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(top + 2 * x)), ones);
        __m256i lower = _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(bottom + 2 * x)), ones);
        __m256i sums = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(upper, lower), bias), 2);
        __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(sums, sums), 0x08);
        _mm_storeu_si128((__m128i *)(out + x), _mm256_castsi256_si128(bytes));
    }
    for (; x < pairs; x++) {
        unsigned sum = (unsigned)top[2 * x] + top[2 * x + 1] + bottom[2 * x] + bottom[2 * x + 1];
        out[x] = (uint8_t)((sum + 1 + (x & 1)) >> 2);
    }
}

#else

int trove_resample_has_avx2(void) { return 0; }

void trove_resample_rows_avx2(
    const float *const *rows, const float *weights, int paired, size_t count, uint8_t *out) {
    (void)rows, (void)weights, (void)paired, (void)count, (void)out;
    __builtin_trap();
}

void trove_transpose_rows_avx2(const uint8_t *staged, size_t stride, size_t columns, float *batch) {
    (void)staged, (void)stride, (void)columns, (void)batch;
    __builtin_trap();
}

void trove_filter_across_avx2(
    const float *batch, const ptrdiff_t *starts, ptrdiff_t first_column, const float *weight_splats, int taps,
    size_t outputs, float *const *slots) {
    (void)batch, (void)starts, (void)first_column, (void)weight_splats, (void)taps, (void)outputs, (void)slots;
    __builtin_trap();
}

void trove_halve_rows_avx2(const uint8_t *top, const uint8_t *bottom, size_t pairs, uint8_t *out) {
    (void)top, (void)bottom, (void)pairs, (void)out;
    __builtin_trap();
}

#endif
