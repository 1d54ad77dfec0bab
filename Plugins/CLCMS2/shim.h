// LittleCMS 2 for TroveColor. lcms2's pixel-format constants are function-like macros, which Swift does not
// import; the few TroveColor uses are spelled out here as constants.
#include <lcms2.h>

/// Straight RGBA8: the alpha byte is an extra channel lcms leaves untouched (no cmsFLAGS_COPY_ALPHA).
static const cmsUInt32Number trove_lcms_rgba8 = TYPE_RGBA_8;
/// A gray sample followed by three bytes lcms leaves untouched: an RGBA8 pixel whose R = G = B, read as gray.
static const cmsUInt32Number trove_lcms_gray_in_rgba8 =
    COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
/// CMYK8 with 0 meaning no ink.
static const cmsUInt32Number trove_lcms_cmyk8 = TYPE_CMYK_8;
/// CMYK8 as Adobe writes it, inverted: 0 meaning full ink.
static const cmsUInt32Number trove_lcms_cmyk8_inverted = TYPE_CMYK_8_REV;
/// RGBA16 big-endian as PNG stores it (lcms swaps the bytes on reading); alpha is filled in by TroveColor.
static const cmsUInt32Number trove_lcms_rgba16_be = TYPE_RGBA_16_SE;
/// A big-endian gray sample followed by three samples lcms leaves untouched: an RGBA16 pixel whose R = G = B.
static const cmsUInt32Number trove_lcms_gray_in_rgba16_be =
    COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(2) | EXTRA_SH(3) | ENDIAN16_SH(1);
/// Native-endian 16-bit gray, one sample a pixel (TroveColor's table of every gray value).
static const cmsUInt32Number trove_lcms_gray16 = TYPE_GRAY_16;
/// Packed RGB8, three bytes a pixel.
static const cmsUInt32Number trove_lcms_rgb8 = COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(1);
