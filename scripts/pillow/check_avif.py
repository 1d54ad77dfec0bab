"""Opens an AVIF written by Trove with Pillow and compares it with Pillow's own AVIF of the same source.

Usage: check_avif.py <trove.avif> <source.png> [quality, default 85]
Prints one JSON object: whether Pillow opened Trove's file (and its size and mode), and for Trove's file and
for Pillow's encode of the source at the same quality, the byte count and the RGB PSNR against the source.
Used by Tests/TroveAVIFTests (AVIFPillowTests).
"""
import io
import json
import math
import os
import sys

from PIL import Image, ImageChops, ImageStat


def psnr(a, b):
    """Peak signal-to-noise ratio in dB over the RGB channels (inf when identical)."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    mse = sum(rms * rms for rms in ImageStat.Stat(diff).rms) / 3
    return math.inf if mse == 0 else 10 * math.log10(255 * 255 / mse)


def main():
    trove_path, source_path = sys.argv[1], sys.argv[2]
    quality = int(sys.argv[3]) if len(sys.argv) > 3 else 85
    source = Image.open(source_path)
    source.load()
    try:
        trove = Image.open(trove_path)
        trove.load()
    except Exception as error:  # report, do not crash: the test shows the reason
        print(json.dumps({"opened": False, "error": f"{type(error).__name__}: {error}"}))
        return
    buffer = io.BytesIO()
    source.save(buffer, format="AVIF", quality=quality)
    buffer.seek(0)
    pillow = Image.open(buffer)
    pillow.load()
    print(json.dumps({
        "opened": True,
        "format": trove.format,
        "width": trove.width,
        "height": trove.height,
        "mode": trove.mode,
        "trove": {"bytes": os.path.getsize(trove_path), "psnr": psnr(trove, source)},
        "pillow": {"bytes": len(buffer.getvalue()), "psnr": psnr(pillow, source)},
    }))


if __name__ == "__main__":
    main()
