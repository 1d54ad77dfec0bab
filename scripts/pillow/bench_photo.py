"""The benchmarks' 2K photo: a fixture photo scaled to 2048x1365 with a little gaussian grain (so it
compresses like a camera's), written by Pillow as OUT_DIR/source.EXT for each format asked (JPEG q90,
PNG, WebP q90, AVIF q80). scripts/format-bench and scripts/serve-cpu-ab --source both use it, so the two
measure the same file.

    python bench_photo.py SOURCE OUT_DIR [--icc PROFILE] [jpeg] [png] [webp] [avif]   (all four when none is named)

With --icc, each file embeds that ICC profile, so its pixels are read as that profile's colours (a camera's
Adobe RGB or a phone's Display P3 photo) and a server converts them to sRGB.
"""

import random
import sys

from PIL import Image

SAVE_OPTIONS = {"jpeg": {"quality": 90}, "png": {}, "webp": {"quality": 90}, "avif": {"quality": 80}}

source, out = sys.argv[1], sys.argv[2]
formats = sys.argv[3:]
icc = None
if formats[:1] == ["--icc"]:
    if len(formats) < 2:
        sys.exit("bench_photo.py: --icc needs a profile's path")
    with open(formats[1], "rb") as profile:
        icc = profile.read()
    formats = formats[2:]
formats = formats or list(SAVE_OPTIONS)
unknown = [name for name in formats if name not in SAVE_OPTIONS]
if unknown:
    sys.exit(f"bench_photo.py: unknown format {', '.join(unknown)} (jpeg, png, webp, avif)")
photo = Image.open(source).convert("RGB").resize((2048, 1365), Image.LANCZOS)
random.seed(7)
grain = Image.effect_noise((2048, 1365), 10).convert("RGB")
photo = Image.blend(photo, grain, 0.06)
for name in formats:
    options = dict(SAVE_OPTIONS[name], **({"icc_profile": icc} if icc else {}))
    photo.save(f"{out}/source.{name}", **options)
