"""The benchmarks' 2K photo: a fixture photo scaled to 2048x1365 with a little gaussian grain (so it
compresses like a camera's), written by Pillow as OUT_DIR/source.EXT for each format asked (JPEG q90,
PNG, WebP q90, AVIF q80). scripts/format-bench and scripts/serve-cpu-ab --source both use it, so the two
measure the same file.

    python bench_photo.py SOURCE OUT_DIR [jpeg] [png] [webp] [avif]    (all four when none is named)
"""

import random
import sys

from PIL import Image

SAVE_OPTIONS = {"jpeg": {"quality": 90}, "png": {}, "webp": {"quality": 90}, "avif": {"quality": 80}}

source, out = sys.argv[1], sys.argv[2]
formats = sys.argv[3:] or list(SAVE_OPTIONS)
unknown = [name for name in formats if name not in SAVE_OPTIONS]
if unknown:
    sys.exit(f"bench_photo.py: unknown format {', '.join(unknown)} (jpeg, png, webp, avif)")
photo = Image.open(source).convert("RGB").resize((2048, 1365), Image.LANCZOS)
random.seed(7)
grain = Image.effect_noise((2048, 1365), 10).convert("RGB")
photo = Image.blend(photo, grain, 0.06)
for name in formats:
    photo.save(f"{out}/source.{name}", **SAVE_OPTIONS[name])
