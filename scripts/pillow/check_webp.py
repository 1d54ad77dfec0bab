"""Checks that WebP files Trove wrote open in Pillow, for TroveWebPTests.

Usage: scripts/pillow/python.sh scripts/pillow/check_webp.py SOURCE.rgba WIDTH HEIGHT LOSSLESS.webp LOSSY.webp QUALITY

SOURCE.rgba holds the straight-alpha RGBA8 pixels Trove encoded (rows top to bottom). Prints one JSON
object: whether Pillow decodes the lossless file to exactly the source, the largest channel difference,
the PSNR (RGB, dB) of Trove's lossy file against the source, and the PSNR of Pillow's own encoding of the
same source at the same quality (0...100), with both files' sizes.
"""

import io
import json
import math
import sys

from PIL import Image, ImageChops, ImageStat, features


def psnr_rgb(a, b):
    """Peak signal-to-noise ratio over the R, G and B channels of two equally sized images."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    sum2 = ImageStat.Stat(diff).sum2
    mse = sum(sum2) / (3 * a.size[0] * a.size[1])
    return math.inf if mse == 0 else 10 * math.log10(255 * 255 / mse)


def main():
    source_path, width, height, lossless_path, lossy_path, quality = sys.argv[1:7]
    size = (int(width), int(height))
    with open(source_path, "rb") as f:
        source = Image.frombytes("RGBA", size, f.read())

    lossless = Image.open(lossless_path)
    lossless.load()
    lossless_rgba = lossless.convert("RGBA")
    diff = ImageChops.difference(lossless_rgba, source)
    max_diff = max(high for _, high in diff.getextrema())

    trove_lossy = Image.open(lossy_path)
    trove_lossy.load()

    # Pillow's own encoding of the same pixels at the same quality, decoded again by Pillow.
    buffer = io.BytesIO()
    source.save(buffer, "WEBP", quality=int(quality))
    pillow_size = buffer.tell()
    buffer.seek(0)
    pillow_lossy = Image.open(buffer)
    pillow_lossy.load()

    with open(lossy_path, "rb") as f:
        trove_size = len(f.read())
    result = {
        "libwebp": features.version("webp"),
        "lossless_format": lossless.format,
        "lossless_size": list(lossless.size),
        "lossless_identical": lossless.size == size and max_diff == 0,
        "lossless_max_difference": max_diff,
        "lossy_format": trove_lossy.format,
        "lossy_size": list(trove_lossy.size),
        "trove_psnr": psnr_rgb(trove_lossy, source),
        "pillow_psnr": psnr_rgb(pillow_lossy, source),
        "trove_bytes": trove_size,
        "pillow_bytes": pillow_size,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
